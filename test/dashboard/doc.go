// Package dashboard tests the rollout dashboard in a real browser:
// Chromium from the distribution's packages (hack/ensure-chromium.sh
// installs it), driven with chromedp against a dashboard served over the
// package's embedded control plane.
package dashboard

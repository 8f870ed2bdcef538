package faults

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
)

// Flags are the hidden --fault-rate and --fault-seed of a controller
// command that may inject faults into its own client. Only the ordinal
// binary, which the chaos suite runs as its controller, has them; the
// cluster binary ordinal-controller does not link this package.
type Flags struct {
	Rate float64
	Seed int64
}

// AddFlags binds the fields to hidden flags of fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&f.Rate, "fault-rate", f.Rate, "testing only: fraction of API requests that get an injected fault")
	fs.Int64Var(&f.Seed, "fault-seed", f.Seed, "testing only: seed of the injected faults")
	_ = fs.MarkHidden("fault-rate")
	_ = fs.MarkHidden("fault-seed")
}

// Validate checks that the rate is a probability.
func (f *Flags) Validate() error {
	if f.Rate < 0 || f.Rate > 1 {
		return fmt.Errorf("--fault-rate must be within [0, 1], got %g", f.Rate)
	}
	return nil
}

// Install makes rc's transport inject faults when the rate is above 0;
// at 0 it leaves rc alone.
func (f *Flags) Install(rc *rest.Config) {
	if f.Rate > 0 {
		rc.Wrap(Wrap(Config{Rate: f.Rate, Seed: f.Seed}))
	}
}

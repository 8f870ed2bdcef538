package dashboard

import (
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		err    string
	}{
		{"the defaults are valid", func(*Config) {}, ""},
		{"localhost with a fixed port is valid", func(c *Config) { c.Address = "localhost:8001" }, ""},
		{"IPv6 loopback is valid", func(c *Config) { c.Address = "[::1]:0" }, ""},
		{"an address without a port is refused", func(c *Config) { c.Address = "127.0.0.1" }, "want host:port"},
		{"every interface is refused without --allow-remote", func(c *Config) { c.Address = ":8001" }, "not a loopback address"},
		{"a remote address is refused without --allow-remote", func(c *Config) { c.Address = "10.0.0.5:8001" }, "pass --allow-remote"},
		{"a remote address needs TLS", func(c *Config) { c.Address, c.AllowRemote = "0.0.0.0:8001", true }, "needs TLS"},
		{"a remote address with TLS is valid", func(c *Config) {
			c.Address, c.AllowRemote, c.TLSCertFile, c.TLSKeyFile = "0.0.0.0:8001", true, "c.pem", "k.pem"
		}, ""},
		{"a certificate without a key is refused", func(c *Config) { c.TLSCertFile = "c.pem" }, "both a certificate file and a key file"},
		{"a zero push interval is refused", func(c *Config) { c.Interval = 0 }, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := NewConfig()
			tt.change(&cfg)
			err := cfg.Validate()
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.err)
			}
		})
	}
}

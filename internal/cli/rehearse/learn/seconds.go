package learn

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Seconds is a duration that reads and writes as seconds in JSON, to the
// millisecond, so that a forecast reads as people speak of rollouts.
type Seconds time.Duration

// D is s as a time.Duration.
func (s Seconds) D() time.Duration { return time.Duration(s) }

// String is s to a tenth of a second, e.g. "2.5s".
func (s Seconds) String() string { return fmt.Sprintf("%.1fs", time.Duration(s).Seconds()) }

// MarshalJSON writes s as a number of seconds.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return json.Marshal(math.Round(time.Duration(s).Seconds()*1000) / 1000)
}

// UnmarshalJSON reads a number of seconds.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("seconds: %w", err)
	}
	*s = Seconds(math.Round(f * float64(time.Second)))
	return nil
}

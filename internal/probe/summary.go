package probe

import (
	"math"
	"math/rand/v2"
	"slices"
)

// sampleBound is how many probes the quantiles are computed over: a
// uniform reservoir sample (Vitter's algorithm R), so memory stays bounded
// however long the probe runs. Up to it, p50 and p99 are exact; past it,
// estimates from the sample. Count and max are always exact.
const sampleBound = 10000

// Summary is a run's probes taken together.
type Summary struct {
	// Probes counts the probes whose annotation arrived, Lost those whose
	// did not in time.
	Probes, Lost int
	// Lag is in seconds, RVLag in resourceVersions, over the probes that
	// arrived.
	Lag, RVLag Quantiles
	// Sampled is how many probes the quantiles were computed over (all of
	// them up to sampleBound).
	Sampled int

	sample []pair
	rnd    *rand.Rand
	maxLag float64
	maxRV  float64
}

// Quantiles are a distribution's median, 99th percentile and maximum.
type Quantiles struct {
	P50, P99, Max float64
}

type pair struct{ lag, rv float64 }

func newSummary() *Summary {
	return &Summary{rnd: rand.New(rand.NewPCG(1, 2))}
}

func (s *Summary) add(x Sample) {
	if x.Lost {
		s.Lost++
		return
	}
	s.Probes++
	p := pair{lag: x.Lag.Seconds(), rv: float64(x.RVLag)}
	s.maxLag, s.maxRV = max(s.maxLag, p.lag), max(s.maxRV, p.rv)
	if len(s.sample) < sampleBound {
		s.sample = append(s.sample, p)
	} else if i := s.rnd.IntN(s.Probes); i < sampleBound {
		s.sample[i] = p
	}
}

// finish computes the quantiles, once, when the run ends.
func (s *Summary) finish() *Summary {
	s.Sampled = len(s.sample)
	if s.Sampled > 0 {
		s.Lag = quantiles(s.sample, func(p pair) float64 { return p.lag }, s.maxLag)
		s.RVLag = quantiles(s.sample, func(p pair) float64 { return p.rv }, s.maxRV)
	}
	return s
}

// quantiles are by nearest rank over the sample; max is the exact one.
func quantiles(sample []pair, of func(pair) float64, maxAll float64) Quantiles {
	v := make([]float64, len(sample))
	for i, p := range sample {
		v[i] = of(p)
	}
	slices.Sort(v)
	rank := func(q float64) float64 {
		return v[max(0, int(math.Ceil(q*float64(len(v))))-1)]
	}
	return Quantiles{P50: rank(0.50), P99: rank(0.99), Max: maxAll}
}

package web

import (
	"github.com/fileframe/fileframe/internal/password"
	"github.com/prometheus/client_golang/prometheus"
)

// hasherCollector exposes a password.Hasher's Stats to Prometheus, all read
// from one snapshot per scrape.
type hasherCollector struct {
	h                                      *password.Hasher
	running, waiting, memory, budget, done *prometheus.Desc
	busy                                   *prometheus.Desc
}

func newHasherCollector(h *password.Hasher) *hasherCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("fileframe_password_"+name, help, nil, nil)
	}
	return &hasherCollector{
		h:       h,
		running: d("hashes_running", "Argon2 password hashes being computed now."),
		waiting: d("hashes_waiting", "Password hashes waiting in line for memory of the hashing budget."),
		memory:  d("hash_memory_bytes", "Memory of the password hashing budget held now."),
		budget:  d("hash_memory_budget_bytes", "The password hashing budget (--password-hash-memory)."),
		done:    d("hashes_total", "Argon2 password hashes computed (sign-in, setup, sign-up, password change)."),
		busy:    d("hashes_busy_total", "Password hashes refused because the budget stayed full (answered 503)."),
	}
}

func (c *hasherCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.running, c.waiting, c.memory, c.budget, c.done, c.busy} {
		ch <- d
	}
}

func (c *hasherCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.h.Stats()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	gauge(c.running, float64(st.Running))
	gauge(c.waiting, float64(st.Waiting))
	gauge(c.memory, float64(st.Memory)*1024)
	gauge(c.budget, float64(c.h.Budget().Memory)*1024)
	ch <- prometheus.MustNewConstMetric(c.done, prometheus.CounterValue, float64(st.Computed))
	ch <- prometheus.MustNewConstMetric(c.busy, prometheus.CounterValue, float64(st.Busy))
}

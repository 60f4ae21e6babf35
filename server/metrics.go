package server

import (
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/recall-engine/recall"
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	stage    *prometheus.HistogramVec
	errors   *prometheus.CounterVec
	inflight prometheus.Gauge
}

func newMetrics(pool *pgxpool.Pool) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	buckets := []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recall_http_requests_total",
		Help: "HTTP requests by route and status."}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "recall_http_request_duration_seconds",
		Help: "HTTP request latency by route.", Buckets: buckets}, []string{"route"})
	m.stage = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "recall_stage_duration_seconds",
		Help: "Time in each stage of a recall.", Buckets: buckets}, []string{"stage"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recall_errors_total",
		Help: "Failed recalls, traces and writes by kind (invalid-input, invalid-batch, dimension, timeout, canceled, schema, internal)."}, []string{"kind"})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "recall_http_in_flight", Help: "Requests being served."})
	m.reg.MustRegister(m.requests, m.latency, m.stage, m.errors, m.inflight,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if pool != nil {
		m.reg.MustRegister(poolCollector{pool})
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) stages(t recall.Timings) {
	for _, s := range []struct {
		name string
		d    float64
	}{{"embed", t.Embed.Seconds()}, {"statement", t.Statement.Seconds()}, {"order", t.Order.Seconds()}, {"rerank", t.Rerank.Seconds()},
		{"pack", t.Pack.Seconds()}, {"access", t.Access.Seconds()}, {"total", t.Total.Seconds()}} {
		m.stage.WithLabelValues(s.name).Observe(s.d)
	}
}

// poolCollector reports the database pool's connections.
type poolCollector struct{ pool *pgxpool.Pool }

var (
	poolConns = prometheus.NewDesc("recall_pool_connections", "Database pool connections by state.", []string{"state"}, nil)
	poolMax   = prometheus.NewDesc("recall_pool_max_connections", "The database pool's maximum size.", nil, nil)
	poolWaits = prometheus.NewDesc("recall_pool_acquire_waits_total", "Acquires that waited for a connection.", nil, nil)
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolConns
	ch <- poolMax
	ch <- poolWaits
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.TotalConns()), "total")
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
}

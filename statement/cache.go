package statement

import (
	"sync"
	"sync/atomic"
)

// Cache builds each shape's statement once and hands the same one to every caller. Safe for
// concurrent use; the zero value is ready.
type Cache struct {
	mu     sync.Mutex
	m      map[Shape]*cacheEntry
	builds atomic.Int64
}

type cacheEntry struct {
	once sync.Once
	st   *Statement
	err  error
}

// Get returns the statement for shape, building it on first use.
func (c *Cache) Get(shape Shape) (*Statement, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[Shape]*cacheEntry{}
	}
	e, ok := c.m[shape]
	if !ok {
		e = &cacheEntry{}
		c.m[shape] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		c.builds.Add(1)
		e.st, e.err = Build(shape)
	})
	return e.st, e.err
}

// Builds reports how many statements the cache has built.
func (c *Cache) Builds() int64 { return c.builds.Load() }

package stats

import "strings"

// sketch finds the most frequent names in a stream in bounded memory: the
// Space-Saving algorithm (Metwally, Agrawal and El Abbadi, 2005). It holds
// at most size names; a new name, when it is full, takes the place of the
// least counted one and inherits its count as its error, so that a
// frequent name arriving late is not pushed out at once by the next new
// name. Any name requested more than 1/size of the time is held.
type sketch struct {
	size  int
	index map[string]*hit
	heap  []*hit // a min-heap by count
}

// hit is one name of a sketch: count is an upper bound of its requests,
// count-err the requests counted since it was taken in (a lower bound).
type hit struct {
	name       string
	count, err uint64
	pos        int // in the heap
}

func newSketch(size int) *sketch {
	return &sketch{size: size, index: map[string]*hit{}}
}

// add counts one request for name.
func (s *sketch) add(name string) {
	if h, ok := s.index[name]; ok {
		h.count++
		s.down(h.pos)
		return
	}
	name = strings.Clone(name) // name may be part of a long request string
	if len(s.heap) < s.size {
		h := &hit{name: name, count: 1, pos: len(s.heap)}
		s.heap = append(s.heap, h)
		s.index[name] = h
		s.up(h.pos)
		return
	}
	least := s.heap[0] // its place and its count go to name
	delete(s.index, least.name)
	least.name, least.err = name, least.count
	least.count++
	s.index[name] = least
	s.down(0)
}

// each calls fn with every name and the requests counted since it was
// taken in: never more than it had.
func (s *sketch) each(fn func(name string, n uint64)) {
	for _, h := range s.heap {
		fn(h.name, h.count-h.err)
	}
}

func (s *sketch) less(i, j int) bool { return s.heap[i].count < s.heap[j].count }

func (s *sketch) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.heap[i].pos, s.heap[j].pos = i, j
}

func (s *sketch) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			return
		}
		s.swap(i, parent)
		i = parent
	}
}

func (s *sketch) down(i int) {
	for {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(s.heap) && s.less(l, least) {
			least = l
		}
		if r < len(s.heap) && s.less(r, least) {
			least = r
		}
		if least == i {
			return
		}
		s.swap(i, least)
		i = least
	}
}

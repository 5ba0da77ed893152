package jsonx

import (
	"bytes"
	"hash/maphash"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// ShareMin is the size from which Keep shares a value instead of copying it.
// Below it the table's own cost per distinct value (an entry, a weak handle, a
// cleanup: about 150 bytes) outweighs what sharing saves.
const ShareMin = 128

// shared holds, for each large value some live object kept, a weak pointer to
// the one copy every holder of equal bytes shares. Pods of one template repeat
// most of their members byte for byte (containers' env, probes, resources,
// volumes, owner references), and so do successive versions of one pod, so a
// store of N pods holds each such member once instead of N times. The entries
// are weak: a value no object references any more is collected, and its
// cleanup drops the entry, so the table never keeps memory alive by itself.
var shared = struct {
	sync.Mutex
	m map[uint64][]sharedValue
}{m: map[uint64][]sharedValue{}}

var shareSeed = maphash.MakeSeed()

// sharedValue is one shared copy: a weak pointer to its first byte and its length.
type sharedValue struct {
	p   weak.Pointer[byte]
	n   int
	enc *Encoding // nil for JSON
}

// Share returns bytes equal to v that it may also return to other callers:
// the caller must never write to them. v itself is never retained. Share is
// safe for concurrent use.
func Share(v []byte) []byte {
	s, _ := share(nil, v, nil)
	return s
}

// share is Share for values of enc (nil: JSON), calling check, when it is not
// nil, before keeping a value no equal one of enc stands for.
func share(enc *Encoding, v []byte, check Checker) ([]byte, error) {
	if len(v) == 0 {
		if check != nil {
			return nil, check.Check()
		}
		return nil, nil
	}
	h := maphash.Bytes(shareSeed, v)
	if s := lookup(enc, h, v); s != nil {
		return s, nil
	}
	if check != nil {
		// Outside the lock: checking may take a while.
		if err := check.Check(); err != nil {
			return nil, err
		}
	}
	shared.Lock()
	defer shared.Unlock()
	if s := lookupLocked(enc, h, v); s != nil {
		return s, nil // kept meanwhile by another goroutine
	}
	// At least 16 bytes, so the copy never lands in the runtime's tiny
	// allocator, where a weak pointer or cleanup would wait on its neighbours.
	c := make([]byte, max(len(v), 16))[:len(v):len(v)]
	copy(c, v)
	shared.m[h] = append(shared.m[h], sharedValue{p: weak.Make(&c[0]), n: len(c), enc: enc})
	runtime.AddCleanup(&c[0], forget, h)
	return c, nil
}

func lookup(enc *Encoding, h uint64, v []byte) []byte {
	shared.Lock()
	defer shared.Unlock()
	return lookupLocked(enc, h, v)
}

func lookupLocked(enc *Encoding, h uint64, v []byte) []byte {
	for _, e := range shared.m[h] {
		if e.n != len(v) || e.enc != enc {
			continue
		}
		if p := e.p.Value(); p != nil {
			if s := unsafe.Slice(p, e.n); bytes.Equal(s, v) {
				return s
			}
		}
	}
	return nil
}

// forget drops the entries under h whose value has been collected.
func forget(h uint64) {
	shared.Lock()
	defer shared.Unlock()
	live := shared.m[h][:0]
	for _, e := range shared.m[h] {
		if e.p.Value() != nil {
			live = append(live, e)
		}
	}
	if len(live) == 0 {
		delete(shared.m, h)
		return
	}
	shared.m[h] = live
}

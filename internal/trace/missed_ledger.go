package trace

// Ledger knows the changes a server made beyond what the client saw: every
// event of a recording being replayed, or a model's history. With one, the
// gap audit also tells the pods that were added and gone again while the
// client was away, which no state it lists can show.
//
// The trace asks it on the reflector's goroutine, once per relist.
type Ledger interface {
	// Between returns the changes with a resourceVersion after from and
	// not after to, oldest first.
	Between(from, to string) []LedgerEntry
	// Source names it in the trace's explanations: "recording", "model".
	Source() string
}

// LedgerEntry is one change a Ledger knows of.
type LedgerEntry struct {
	// Type is the watch event that told it: ADDED, MODIFIED or DELETED.
	Type            string
	Namespace, Name string
	ResourceVersion string
}

func (e LedgerEntry) key() string {
	return podVersion{Namespace: e.Namespace, Name: e.Name}.key()
}

// SetLedger gives the gap audit l (nil: none). Call it before the first
// relist, typically right after New; a nil t does nothing.
func (t *Tracer) SetLedger(l Ledger) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ledger = l
}

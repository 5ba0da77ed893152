package gap

// Ledger knows the changes a server made beyond what the client saw: every
// event of a recording being replayed, or a model's history. With one, the
// gap audit also tells the pods that were added and gone again while the
// client was away, which no state it lists can show.
//
// The audit asks it once per relist, under the Tracer's lock: it must not
// wait on the client being traced.
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
	return key(podVersion{Namespace: e.Namespace, Name: e.Name})
}

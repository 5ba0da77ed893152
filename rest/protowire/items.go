package protowire

// Items counts the items of the list in u (a PodList, say): the
// occurrences of its message's items field, each left unread. Errors are a
// *KindError for a kind the schema does not hold or that has no items, and a
// *SyntaxError at the stream offset of the byte at fault.
func Items(u *Unknown) (int, error) {
	m, ok := Root(u.Kind)
	if !ok {
		return 0, &KindError{APIVersion: u.APIVersion, Kind: u.Kind}
	}
	num, _, ok := m.Field("items")
	if !ok {
		return 0, &KindError{APIVersion: u.APIVersion, Kind: u.Kind}
	}
	fields, err := scanFields(nil, u.Raw, u.RawOffset)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range fields {
		if f.num == num {
			n++
		}
	}
	return n, nil
}

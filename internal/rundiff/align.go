package rundiff

// maxCells bounds the table of an ordered alignment (a longest common
// subsequence), and so its memory: 4M cells of 4 bytes. Past it, what is
// left once the shared start and end are set aside is matched by count.
const maxCells = 4 << 20

// onlyIn returns the items of a and of b that an alignment of the two, in
// order, leaves unmatched.
func onlyIn(a, b []Shown) Only {
	start := 0
	for start < len(a) && start < len(b) && a[start].Text == b[start].Text {
		start++
	}
	ea, eb := len(a), len(b)
	for ea > start && eb > start && a[ea-1].Text == b[eb-1].Text {
		ea, eb = ea-1, eb-1
	}
	a, b = a[start:ea], b[start:eb]
	if len(a) == 0 || len(b) == 0 {
		return Only{A: a, B: b}
	}
	if (len(a)+1)*(len(b)+1) > maxCells {
		return byCount(a, b)
	}
	return lcsRest(a, b)
}

// lcsRest aligns a and b by their longest common subsequence of texts.
func lcsRest(a, b []Shown) Only {
	w := len(b) + 1
	// l[i*w+j] is the length of the longest common subsequence of a[i:] and b[j:].
	l := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			switch {
			case a[i].Text == b[j].Text:
				l[i*w+j] = l[(i+1)*w+j+1] + 1
			case l[(i+1)*w+j] >= l[i*w+j+1]:
				l[i*w+j] = l[(i+1)*w+j]
			default:
				l[i*w+j] = l[i*w+j+1]
			}
		}
	}
	var out Only
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Text == b[j].Text:
			i, j = i+1, j+1
		case l[(i+1)*w+j] >= l[i*w+j+1]:
			out.A = append(out.A, a[i])
			i++
		default:
			out.B = append(out.B, b[j])
			j++
		}
	}
	out.A = append(out.A, a[i:]...)
	out.B = append(out.B, b[j:]...)
	return out
}

// byCount matches items of equal text regardless of order: what is left
// over on each side is only in it.
func byCount(a, b []Shown) Only {
	count := map[string]int{}
	for _, s := range b {
		count[s.Text]++
	}
	out := Only{Approximate: true}
	for _, s := range a {
		if count[s.Text] > 0 {
			count[s.Text]--
			continue
		}
		out.A = append(out.A, s)
	}
	for i := len(b) - 1; i >= 0; i-- {
		if count[b[i].Text] > 0 {
			count[b[i].Text]--
			out.B = append(out.B, b[i])
		}
	}
	// out.B was gathered from the end; put it back in order.
	for l, r := 0, len(out.B)-1; l < r; l, r = l+1, r-1 {
		out.B[l], out.B[r] = out.B[r], out.B[l]
	}
	return out
}

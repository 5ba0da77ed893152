package protowire

import (
	"math"
	"os"
	"testing"
)

// recordedPodMessage returns the recorded pod's Pod message.
func recordedPodMessage(tb testing.TB) []byte {
	tb.Helper()
	pb, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		tb.Fatal(err)
	}
	u, err := ParseEnvelope(pb, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return u.Raw
}

// walkAgrees holds the walk of one m in data to the Transcoder's verdict on
// it, both bound to limit bytes of JSON: a run the walk finds valid the
// Transcoder takes, one it finds invalid the Transcoder refuses. It returns
// the walk's verdict.
func walkAgrees(t *testing.T, mi int, data []byte, limit int) verdict {
	t.Helper()
	var w walker
	v := w.message(mi, data)
	if v == valid && w.size > limit {
		v = undecided
	}
	tc := Transcoder{Limit: limit}
	_, err := tc.Message(Message{mi}, data, 0)
	switch {
	case v == valid && err != nil:
		t.Fatalf("%s: the walk takes what the Transcoder refuses: %v", messages[mi].name, err)
	case v == invalid && err == nil:
		t.Fatalf("%s: the walk refuses what the Transcoder takes", messages[mi].name)
	}
	return v
}

// The recorded pod as the apiserver sent it, and every message in it, walks
// to a verdict without the Transcoder: each field in order, each map's keys
// sorted, as the apiserver writes them.
func TestWalkDecidesRecordedPod(t *testing.T) {
	pod := recordedPodMessage(t)
	if v := walkAgrees(t, 0, pod, DefaultLimit); v != valid {
		t.Fatalf("the recorded pod walks to %d, want valid", v)
	}
	// A bound under the pod's JSON leaves it to the Transcoder, which
	// refuses it as too large.
	if v := walkAgrees(t, 0, pod, 1000); v != undecided {
		t.Fatalf("the recorded pod under a 1,000-byte limit walks to %d, want undecided", v)
	}
}

// Each rule of the Transcoder the walk follows, on small messages built for
// it: the walk's verdict, and the Transcoder's agreeing.
func TestWalkRules(t *testing.T) {
	ownerRef, _ := Named("apimachinery/pkg/apis/meta/v1.OwnerReference")
	meta, _ := Named("apimachinery/pkg/apis/meta/v1.ObjectMeta")
	fieldsV1 := func(js string) []byte { return bytesField(1, []byte(js)) }
	entry := func(key string, secs uint64) []byte {
		return cat(bytesField(1, []byte(key)), bytesField(4, varintField(1, secs)), bytesField(7, fieldsV1(`{"f:a":{}}`)))
	}
	label := func(k, v string) []byte {
		return bytesField(11, cat(bytesField(1, []byte(k)), bytesField(2, []byte(v))))
	}
	for _, tc := range []struct {
		name string
		msg  Message
		data []byte
		want verdict
	}{
		{"empty", meta, nil, valid},
		{"strings, any bytes", ownerRef, cat(bytesField(1, []byte("\xff\x00<>")), bytesField(3, []byte("a"))), valid},
		{"truncated", ownerRef, bytesField(1, []byte("abc"))[:3], invalid},
		{"wire type of a string", ownerRef, cat(bytesField(1, []byte("a")), varintField(3, 7)), invalid},
		{"an empty string left out whatever its wire type", meta, varintField(1, 0), valid},
		{"a pointer's wire type", ownerRef, bytesField(6, []byte("x")), invalid},
		{"a field the schema lacks", ownerRef, cat(bytesField(1, []byte("a")), bytesField(40, []byte{0xff})), valid},
		{"out of order", ownerRef, cat(bytesField(3, []byte("a")), bytesField(1, []byte("b"))), undecided},
		{"an integer given as bytes, then again", meta, cat(bytesField(7, []byte("x")), varintField(7, 1)), valid},
		{"a singular field twice, the first bad", ownerRef, cat(varintField(1, 1), bytesField(1, []byte("a"))), valid},
		{"a singular field twice, the last bad", ownerRef, cat(bytesField(1, []byte("a")), varintField(1, 1)), invalid},
		{"map keys sorted", meta, cat(label("a", "1"), label("b", "2")), valid},
		{"map keys unsorted", meta, cat(label("b", "1"), label("a", "2")), undecided},
		{"map key not a string", meta, bytesField(11, varintField(1, 3)), invalid},
		{"map value of a wrong wire type", meta, bytesField(11, cat(bytesField(1, []byte("k")), varintField(2, 3))), undecided},
		{"managedFields entries", meta, cat(bytesField(17, entry("kubelet", 5)), bytesField(17, entry("kcm", 6))), valid},
		{"a time's seconds of a wrong wire type", meta, bytesField(8, bytesField(1, []byte("x"))), invalid},
		{"malformed embedded JSON", meta, bytesField(17, bytesField(7, fieldsV1(`{"f:a":`))), invalid},
		{"data after embedded JSON", meta, bytesField(17, bytesField(7, fieldsV1(`{} {}`))), invalid},
		{"empty embedded JSON", meta, bytesField(17, bytesField(7, nil)), valid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := walkAgrees(t, tc.msg.i, tc.data, DefaultLimit); got != tc.want {
				t.Fatalf("verdict %d, want %d", got, tc.want)
			}
		})
	}
}

// FuzzWalk holds the walk to the Transcoder on any message of the schema
// (the first byte picks it, the second a limit on the JSON): where the walk
// decides, it decides as the Transcoder does.
func FuzzWalk(f *testing.F) {
	f.Add(byte(0), byte(255), recordedPodMessage(f))
	f.Add(byte(1), byte(255), cat(bytesField(11, cat(bytesField(1, []byte("a")), bytesField(2, []byte("b")))),
		bytesField(17, bytesField(7, bytesField(1, []byte(`{"f:x":{}}`))))))
	f.Add(byte(0), byte(3), recordedPodMessage(f))
	f.Fuzz(func(t *testing.T, which, limit byte, data []byte) {
		mi := int(which) % len(messages)
		l := math.MaxInt
		if limit != 255 {
			l = int(limit) * 64
		}
		walkAgrees(t, mi, data, l)
	})
}

// BenchmarkWalkPod walks the recorded pod whole, as the kept runs of a pod
// seen for the first time are walked, beside transcoding it.
func BenchmarkWalkPod(b *testing.B) {
	pod := recordedPodMessage(b)
	b.Run("walk", func(b *testing.B) {
		var w walker
		b.SetBytes(int64(len(pod)))
		b.ReportAllocs()
		for b.Loop() {
			if w.walkRun(0, pod, DefaultLimit) != valid {
				b.Fatal("not valid")
			}
		}
	})
	b.Run("transcode", func(b *testing.B) {
		var tc Transcoder
		b.SetBytes(int64(len(pod)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tc.Message(Message{0}, pod, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

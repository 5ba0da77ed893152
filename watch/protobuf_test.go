package watch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/podwatch/podwatch/internal/protoenc"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/protowire"
	"github.com/podwatch/podwatch/rest/wire"
)

func pbBytes(num int, v []byte) []byte { return protoenc.AppendBytesField(nil, num, v) }

func pbEnvelope(kind string, raw []byte) []byte {
	return protoenc.AppendEnvelope(nil, "v1", kind, raw)
}

func pbFrame(typ string, envelope []byte) []byte {
	return protoenc.AppendWatchFrame(nil, typ, envelope)
}

func pbPod(name, rv string) []byte {
	meta := append(pbBytes(1, []byte(name)), pbBytes(6, []byte(rv))...)
	return pbFrame("ADDED", pbEnvelope("Pod", pbBytes(1, meta)))
}

func pbDecoder(r io.Reader, limit int) *Decoder[testObj] {
	return NewDecoder(r, testCodec, DecoderOptions{Format: wire.Protobuf, MaxFrameSize: limit})
}

func TestProtobufEvents(t *testing.T) {
	status := append(pbBytes(3, []byte("too old")), pbBytes(4, []byte("Expired"))...)
	status = append(status, 6<<3, 0x9a, 0x03) // code 410
	stream := append(pbPod("a", "5"), pbFrame("ERROR", pbEnvelope("Status", status))...)
	d := pbDecoder(bytes.NewReader(stream), 0)
	ev, err := d.Decode()
	if err != nil || ev.Type != Added || ev.Object.Name != "a" || ev.Object.ResourceVersion != "5" || ev.Offset != 0 {
		t.Fatalf("first event: got %+v, %v; want ADDED a at rv 5, offset 0", ev, err)
	}
	ev, err = d.Decode()
	if err != nil || ev.Type != Error || !rest.IsGone(ev.Err) || ev.Offset != int64(len(pbPod("a", "5"))) {
		t.Fatalf("second event: got %+v, %v; want an ERROR 410 after the first frame", ev, err)
	}
	if _, err := d.Decode(); err != io.EOF {
		t.Fatalf("after the last frame: got %v, want io.EOF", err)
	}
}

func TestProtobufFrameErrors(t *testing.T) {
	pod := pbPod("a", "1")
	huge := binary.BigEndian.AppendUint32(nil, 0xffffffff)
	notMagic := pbFrame("ADDED", append([]byte("{}\x00\x00"), pbBytes(2, nil)...))
	tests := []struct {
		name   string
		stream []byte
		check  func(error) bool
	}{
		{"4 GiB length", append(bytes.Clone(pod), huge...), func(err error) bool {
			var fe *FrameTooLargeError
			return errors.As(err, &fe) && fe.Offset == int64(len(pod))
		}},
		{"truncated frame", append(bytes.Clone(pod), pod[:len(pod)-3]...), func(err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF)
		}},
		{"truncated length", append(bytes.Clone(pod), 0, 0), func(err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF)
		}},
		{"wrong magic", append(bytes.Clone(pod), notMagic...), func(err error) bool {
			var me *protowire.MagicError
			return errors.As(err, &me) && me.Offset > int64(len(pod))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := pbDecoder(bytes.NewReader(tt.stream), 1<<20)
			if _, err := d.Decode(); err != nil {
				t.Fatalf("first event: %v", err)
			}
			_, err := d.Decode()
			if !tt.check(err) {
				t.Fatalf("got %v (%T)", err, err)
			}
			if d.in.Size() > 64<<10 {
				t.Errorf("buffer grew to %d bytes", d.in.Size())
			}
		})
	}
}

// TestProtobufNeverWaitsForTheNextFrame decodes frames from a net.Pipe whose
// writer holds each next frame back until the one before is decoded.
func TestProtobufNeverWaitsForTheNextFrame(t *testing.T) {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	next := make(chan struct{})
	frames := [][]byte{pbPod("a", "1"), pbPod("b", "2"), pbPod("c", "3")}
	go func() {
		defer server.Close()
		for _, f := range frames {
			// In two writes, the cut inside the length prefix.
			if _, err := server.Write(f[:2]); err != nil {
				return
			}
			if _, err := server.Write(f[2:]); err != nil {
				return
			}
			select {
			case <-next:
			case <-time.After(testWait):
				return
			}
		}
	}()
	d := pbDecoder(client, 0)
	for i, want := range []string{"a", "b", "c"} {
		ev, err := decodeWithin(t, d)
		if err != nil || ev.Object.Name != want {
			t.Fatalf("frame %d: got %+v, %v; want %s", i, ev, err, want)
		}
		next <- struct{}{}
	}
}

func FuzzProtobufDecoder(f *testing.F) {
	f.Add(append(pbPod("a", "1"), pbPod("b", "2")...))
	f.Add(binary.BigEndian.AppendUint32(nil, 0xffffffff))
	if pod, err := os.ReadFile("../rest/protowire/testdata/pod.pb"); err == nil {
		f.Add(pbFrame("MODIFIED", pod))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := pbDecoder(bytes.NewReader(b), 1<<16)
		for range 100 {
			if _, err := d.Decode(); err != nil {
				break
			}
		}
		// The pods' own wire reader, as the api source decodes them.
		dp := NewDecoder(bytes.NewReader(b), api.Codec, DecoderOptions{Format: wire.Protobuf, MaxFrameSize: 1 << 16})
		for range 100 {
			if _, err := dp.Decode(); err != nil {
				return
			}
		}
	})
}

// TestProtobufTranscodingBounded: a frame within the limit whose JSON would
// not be is refused as a JSON event of that size would be.
func TestProtobufTranscodingBounded(t *testing.T) {
	var spec []byte
	for range 5000 {
		spec = append(spec, pbBytes(2, nil)...) // an empty container: two bytes
	}
	frame := pbFrame("ADDED", pbEnvelope("Pod", pbBytes(2, spec)))
	d := pbDecoder(bytes.NewReader(frame), 2*len(frame))
	_, err := d.Decode()
	var fe *FrameTooLargeError
	if !errors.As(err, &fe) || fe.Offset != 0 {
		t.Fatalf("got %v, want a *FrameTooLargeError at 0", err)
	}
}

// Pods read straight from a protobuf watch are those read through JSON; a
// malformed field of one, even a kept one, fails at its stream offset; an
// ERROR event's Status is read as before.
func TestProtobufWatchDirect(t *testing.T) {
	pb, err := os.ReadFile("../rest/protowire/testdata/pod.pb")
	if err != nil {
		t.Fatal(err)
	}
	status := append(pbBytes(3, []byte("too old")), pbBytes(4, []byte("Expired"))...)
	status = append(status, 6<<3, 0x9a, 0x03) // code 410
	stream := append(pbFrame("ADDED", pb), pbFrame("MODIFIED", pb)...)
	stream = append(stream, pbFrame("ERROR", pbEnvelope("Status", status))...)
	decodeAll := func(stream []byte, direct bool) ([]Event[*api.Pod], error) {
		codec := jsonCodec(api.DecodePod) // every object transcoded to JSON first
		if direct {
			codec = api.Codec
		}
		d := NewDecoder(bytes.NewReader(stream), codec, DecoderOptions{Format: wire.Protobuf, KeepRaw: true})
		var evs []Event[*api.Pod]
		for {
			ev, err := d.Decode()
			if err == io.EOF {
				return evs, nil
			}
			if err != nil {
				return evs, err
			}
			evs = append(evs, ev)
		}
	}
	direct, err := decodeAll(stream, true)
	if err != nil {
		t.Fatalf("direct: %v", err)
	}
	viaJSON, err := decodeAll(stream, false)
	if err != nil {
		t.Fatalf("through JSON: %v", err)
	}
	if len(direct) != 3 || direct[2].Type != Error || !rest.IsGone(direct[2].Err) {
		t.Fatalf("direct: %d events, want ADDED, MODIFIED and an ERROR 410", len(direct))
	}
	for i := range 2 {
		a, _ := viaJSON[i].Object.MarshalJSON()
		b, _ := direct[i].Object.MarshalJSON()
		if direct[i].Type != viaJSON[i].Type || direct[i].Offset != viaJSON[i].Offset || !bytes.Equal(a, b) ||
			!bytes.Equal(direct[i].Raw, viaJSON[i].Raw) {
			t.Fatalf("event %d: direct %s at %d\n%s\nthrough JSON %s at %d\n%s", i, direct[i].Type, direct[i].Offset, b,
				viaJSON[i].Type, viaJSON[i].Offset, a)
		}
	}
	key := bytes.LastIndex(stream, []byte("\x32\x0cClusterFirst")) // the second pod's dnsPolicy
	if key < 0 {
		t.Fatal("the recorded pod has no dnsPolicy ClusterFirst")
	}
	bad := bytes.Clone(stream)
	bad[key] = 6<<3 | 7
	_, err = decodeAll(bad, true)
	var se *protowire.SyntaxError
	if !errors.As(err, &se) || se.Offset != int64(key) {
		t.Fatalf("got %v, want a *protowire.SyntaxError at byte %d", err, key)
	}
}

package docs

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest/wire"
)

// The CBOR section of docs/PROTOCOL.md is told from bodies recorded from
// the real apiserver with its CBORServingAndStorage gate on by
// internal/e2e's TestCBORWire (and, for the gate-off refusal, TestProtobuf),
// with -update-cbor-wire; they are kept byte for byte under testdata/cbor,
// with what was asked for each in meta.json. Its snippets are marked and
// checked as the protobuf section's are:
//
//	<!-- hex: cbor/FILE -->       lines of a hex dump of FILE
//	<!-- recorded: cbor/FILE -->  the request FILE answers, its status and Content-Type
//	<!-- frames: cbor/FILE -->    lines of podwatch's text trace of FILE served as recorded
var cborMarkerRE = regexp.MustCompile(`^<!-- (hex|recorded|frames): cbor/([a-z-]+\.(?:bin|json)) -->$`)

var cborDir = filepath.Join("testdata", "cbor")

// cborSource prefixes a CBOR snippet's source, to tell it from protobuf's.
const cborSource = "cbor-"

func checkCBOR(t *testing.T, s snippet) {
	t.Helper()
	s.source = strings.TrimPrefix(s.source, cborSource)
	checkRecordedWire(t, cborDir, wire.ContentTypeCBOR, s)
}

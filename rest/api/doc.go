// Package api holds podwatch's own pod types: a useful subset of core/v1 Pod with
// typed fields where podwatch acts on them, and everything else kept verbatim so a
// decoded pod encodes back to the JSON the server sent.
package api

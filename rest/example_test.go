package rest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/wire"
)

// A kubelet lists the pods bound to its node, decoding them as they stream in.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("server got:", r.URL.RequestURI())
		io.WriteString(w, list(smallPod("web-0", "41"), smallPod("web-1", "42")))
	}))
	defer srv.Close()

	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := c.Get().Resource("pods").
		FieldSelector(rest.OneTermEqualSelector("spec.nodeName", "node-a")).
		Limit(500).
		Stream(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	pods, err := rest.DecodeList(resp.Body, wire.JSON, jsonCodec(decodeTestObj), rest.ListLimits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("list at resourceVersion", pods.Metadata.ResourceVersion)
	for _, p := range pods.Items {
		fmt.Println(p.Meta.Namespace, p.Meta.Name)
	}
	// Output:
	// server got: /api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&limit=500
	// list at resourceVersion 100
	// ns web-0
	// ns web-1
}

// Non-2xx answers become a *StatusError, which the predicates look into.
func ExampleIsGone() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusGone)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (90)","reason":"Expired","code":410}`)
	}))
	defer srv.Close()

	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Get().Resource("pods").ResourceVersion("5").Watch(true).Stream(context.Background())
	fmt.Println("gone:", rest.IsGone(err))
	if se, ok := rest.AsStatusError(err); ok {
		fmt.Println(se.Status.Reason, se.Status.Message)
	}
	// Output:
	// gone: true
	// Expired too old resource version: 5 (90)
}

func ExampleEscapeFieldValue() {
	fmt.Println(rest.EscapeFieldValue(`a,b=c\d`))
	fmt.Println(rest.OneTermEqualSelector("metadata.name", "x=y"))
	// Output:
	// a\,b\=c\\d
	// metadata.name=x\=y
}

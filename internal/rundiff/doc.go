// Package rundiff compares two runs of a watch client: recordings (fixture
// folders or recording files, any format version and body format) or JSON
// traces (podwatch's --trace-format json), and says where they first part
// and what each holds that the other does not.
//
// A run is read as one sequence of items, in the order the client met them:
// each request (its shape, as fixture.Shape has it, its resourceVersion and
// the answer's status), each watch event (type, pod, resourceVersion; an
// ERROR's code) and each state pushed (the whole pod set, each pod with its
// resourceVersion). A trace tells all three itself. A recording holds only
// the wire, so its pushes are computed: its bodies, read as a JSON client of
// the recorded server read them (Recording.JSON), are applied in recorded
// order to podwatch's own undelta store, lists as a replace, watch events one
// by one, a watch list's initial events as one replace at its bookmark. That
// is what the recorded client's store was pushed, with no replay server and
// no timing in between, so the same recording always gives the same pushes.
//
// resourceVersions are compared exactly, or by rank (RVRank), for two runs of
// one scenario on two clusters whose versions differ by the writes their
// start-ups made: see Options.
package rundiff

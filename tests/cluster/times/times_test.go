// Package times holds the core's times (src/podspec/time.rs) equal to Kubernetes' own: on every
// input of tests/fixtures/times.tsv, what metav1.Time's UnmarshalJSON reads (an error, or the
// moment) and what its MarshalJSON writes back. This test writes that file with UPDATE_GOLDEN=1 and
// fails when the file is not what apimachinery gives; tests/times.rs holds the core to the file.
package times

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const golden = "../../fixtures/times.tsv"

// What apimachinery makes of a time's text: "error", or its Unix seconds, nanoseconds and the
// text MarshalJSON writes (which writes Go's zero time as null).
func answer(text string) string {
	quoted, err := json.Marshal(text)
	if err != nil {
		return "error"
	}
	var t metav1.Time
	if err := t.UnmarshalJSON(quoted); err != nil {
		return "error"
	}
	written, err := t.MarshalJSON()
	if err != nil {
		return "error"
	}
	return fmt.Sprintf("%d %d %s", t.Unix(), t.Nanosecond(), strings.Trim(string(written), `"`))
}

// The inputs: valid times at the edges of every field, and every one-byte change of a few.
func corpus() []string {
	seen := map[string]bool{}
	var all []string
	add := func(s string) {
		if !seen[s] && !strings.ContainsAny(s, "\t\n") {
			seen[s] = true
			all = append(all, s)
		}
	}
	for _, year := range []string{"0000", "0001", "0004", "0100", "0400", "1900", "1970", "2000", "2024", "2100", "9999"} {
		for month := 0; month <= 13; month++ {
			for _, day := range []int{0, 1, 28, 29, 30, 31, 32} {
				add(fmt.Sprintf("%s-%02d-%02dT12:00:00Z", year, month, day))
			}
		}
	}
	add("0001-01-01T00:00:00Z")
	for h := 0; h <= 25; h++ {
		add(fmt.Sprintf("2026-01-02T%d:04:05Z", h))
		add(fmt.Sprintf("2026-01-02T%02d:04:05Z", h))
	}
	for _, ms := range []string{"00", "59", "60", "61", "99", "5", "005"} {
		add("2026-01-02T03:" + ms + ":05Z")
		add("2026-01-02T03:04:" + ms + "Z")
	}
	for _, frac := range []string{".", ",", ".0", ",5", ".123456789", ".1234567891", ".123456789123456789", ".-1", ".+1", "..5", ".5.5"} {
		add("2026-01-02T03:04:05" + frac + "Z")
		add("2026-01-02T03:04:05" + frac + "+01:00")
	}
	for _, off := range []string{"+00:00", "-00:00", "+23:59", "-23:59", "+24:00", "-24:00", "+24:60", "+24:61", "+25:00", "+00:60", "-00:61", "+0100", "+01", "+1:00", "+01:0", "+01:000", "+01:00:00", "01:00", "Z", "z", "", "UTC", "Z+01:00", "+01:00Z", "±01:00"} {
		add("2026-01-02T03:04:05" + off)
		add("0000-01-01T00:00:00" + off)
		add("9999-12-31T23:59:59" + off)
	}
	bases := []string{
		"2026-01-02T03:04:05Z",
		"2024-02-29T23:59:59.123456789+05:30",
		"1970-01-01T0:00:00,5-01:00",
		"0000-01-01T00:00:00+24:00",
		"9999-12-31T23:59:59-00:60",
	}
	bytes := "019-:TtZz.,+ x"
	for _, base := range bases {
		for i := 0; i <= len(base); i++ {
			add(base[:i])
			if i < len(base) {
				add(base[:i] + base[i+1:])
			}
			for _, c := range bytes {
				add(base[:i] + string(c) + base[i:])
				if i < len(base) {
					add(base[:i] + string(c) + base[i+1:])
				}
			}
		}
	}
	sort.Strings(all)
	return all
}

func TestTimes(t *testing.T) {
	var made strings.Builder
	for _, text := range corpus() {
		fmt.Fprintf(&made, "%s\t%s\n", text, answer(text))
	}
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(made.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	kept, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(made.String(), "\n")
	got := strings.Split(string(kept), "\n")
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("%s line %d is %q; apimachinery gives %q (UPDATE_GOLDEN=1 writes it again)", golden, i+1, got[min(i, len(got)-1)], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s has %d lines; apimachinery gives %d", golden, len(got), len(want))
	}
}

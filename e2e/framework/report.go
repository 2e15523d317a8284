/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"fmt"
	"io"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// failureMessageLimit keeps a failure's line readable in a log's tail.
const failureMessageLimit = 1200

// PrintFailures writes one line per failed spec of r: where it failed and
// why. Every suite runs it as a ReportAfterSuite, so the reason lands right
// above ginkgo's closing summary, which names failed specs but not their
// messages. A CI that keeps only a log's tail would otherwise lose the one
// line that says why, and a rare failure could not be diagnosed afterwards.
func PrintFailures(w io.Writer, r types.Report) {
	for _, s := range r.SpecReports {
		if !s.Failed() {
			continue
		}
		fmt.Fprintf(w, "FAILED %q at %s: %s\n", s.FullText(), s.Failure.Location, oneLine(s.Failure.Message, failureMessageLimit))
	}
}

// oneLine folds a multi-line message onto one line, cut to limit bytes.
func oneLine(msg string, limit int) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > limit {
		msg = msg[:limit] + " …(cut)"
	}
	return msg
}

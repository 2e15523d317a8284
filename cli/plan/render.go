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

package plan

import (
	"encoding/json"
	"fmt"
	"io"
)

// symbol marks a change in the text output: + adds, - removes, ~ changes,
// ! needs attention, x is rejected.
func symbol(c Change) string {
	if c.Rejected {
		return "x"
	}
	switch c.Kind {
	case Offload, OfferAdded, PeerAdded:
		return "+"
	case Unoffload, OfferWithdrawn, PeerRemoved:
		return "-"
	case PlacementViolation, NamespaceDeleted, OfferShrink, BuildFailed:
		return "!"
	}
	return "~"
}

// WriteText writes the plan for people: the changes grouped by cluster, one
// line each, then a summary line.
func (p *Plan) WriteText(w io.Writer) error {
	for _, c := range p.Clusters {
		if _, err := fmt.Fprintf(w, "%s\n", c.Name); err != nil {
			return err
		}
		for _, ch := range c.Changes {
			subject := ""
			if ch.Namespace != "" {
				subject = ch.Namespace + ": "
			}
			rejected := ""
			if ch.Rejected {
				rejected = "REJECTED "
			}
			if _, err := fmt.Fprintf(w, "  %s %s%s%s\n", symbol(ch), rejected, subject, ch.Message); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, p.Summary())
	return err
}

// Summary is the plan's last line.
func (p *Plan) Summary() string {
	changes, rejected := p.Count()
	if changes == 0 {
		return "Plan: no change to offloading, peerings or offers."
	}
	s := fmt.Sprintf("Plan: %d %s in %d %s", changes, plural(changes, "change", "changes"), len(p.Clusters), plural(len(p.Clusters), "cluster", "clusters"))
	if rejected > 0 {
		return s + fmt.Sprintf(", %d rejected: Flux would fail to apply %s; fix %s before merging.",
			rejected, plural(rejected, "it", "them"), plural(rejected, "it", "them"))
	}
	return s + ", none rejected."
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteJSON writes the plan for bots.
func (p *Plan) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

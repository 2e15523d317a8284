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

package podbench

import (
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestParseStatCPUAddsUserAndSystemTime(t *testing.T) {
	g := NewWithT(t)
	// A command name with a space and a parenthesis must not shift the fields.
	stat := "4242 (kube (api) srv) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 12 0 100 0 0"
	d, err := ParseStatCPU(stat)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d).To(Equal(3800 * time.Millisecond))
	_, err = ParseStatCPU("4242 kube S 1")
	g.Expect(err).To(MatchError(ContainSubstring("no ')'")))
	_, err = ParseStatCPU("4242 (kube) S 1 2")
	g.Expect(err).To(MatchError(ContainSubstring("want at least 13")))
}

func TestParseStatCPUOfThisProcess(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile("/proc/self/stat")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = ParseStatCPU(string(data))
	g.Expect(err).NotTo(HaveOccurred())
}

func TestCPUSinceSubtractsAndCountsARestartedProcessFromZero(t *testing.T) {
	g := NewWithT(t)
	before := CPU{"a": time.Second, "b": 5 * time.Second}
	after := CPU{"a": 3 * time.Second, "b": 2 * time.Second, "c": time.Second}
	g.Expect(after.Since(before)).To(Equal(CPU{"a": 2 * time.Second, "b": 2 * time.Second, "c": time.Second}))
	g.Expect(after.Since(before).Total()).To(Equal(5 * time.Second))
}

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
	"os"
	"testing"

	. "github.com/onsi/gomega"
)

const status = `Name:	spillway-contro
VmPeak:	 2000000 kB
VmHWM:	   81234 kB
VmRSS:	   65432 kB
Threads:	12
`

func TestParseStatusReadsPeakAndCurrentRSS(t *testing.T) {
	g := NewWithT(t)
	m, err := ParseStatus(status)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m).To(Equal(Memory{Peak: 81234 * 1024, Current: 65432 * 1024}))
}

func TestParseStatusRejectsWhatItCannotRead(t *testing.T) {
	g := NewWithT(t)
	_, err := ParseStatus("Name:\tkthreadd\nThreads:\t1\n")
	g.Expect(err).To(MatchError(ContainSubstring("no VmHWM")))
	_, err = ParseStatus("VmHWM:\t12 MB\nVmRSS:\t1 kB\n")
	g.Expect(err).To(MatchError(ContainSubstring(`want "<n> kB"`)))
}

func TestReadMemoryOfThisProcess(t *testing.T) {
	g := NewWithT(t)
	m, err := ReadMemory(os.Getpid())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Current).To(BeNumerically(">", 0))
	g.Expect(m.Peak).To(BeNumerically(">=", m.Current))
}

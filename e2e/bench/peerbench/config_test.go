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

package peerbench

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestConfigFromEnvDefaultsWithoutTheVariable(t *testing.T) {
	g := NewWithT(t)
	c, err := ConfigFromEnv(func(string) string { return "" })
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Counts).To(Equal(DefaultConfig.Counts))
	c.Counts[0] = 99
	g.Expect(DefaultConfig.Counts[0]).NotTo(Equal(99), "the default must not be shared with a config")
}

func TestConfigFromEnvReadsSpacesAndCommas(t *testing.T) {
	g := NewWithT(t)
	c, err := ConfigFromEnv(func(k string) string {
		if k == EnvPeers {
			return " 1, 10 25,100 "
		}
		return ""
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.Counts).To(Equal([]int{1, 10, 25, 100}))
}

func TestConfigFromEnvNamesTheVariableAndAnExample(t *testing.T) {
	for value, why := range map[string]string{
		"10 five": `"five" is not a positive number`,
		"0 10":    `"0" is not a positive number`,
		"10 10":   "10 after 10",
		"25 10":   "must increase",
		" , ":     "no number of peerings",
	} {
		g := NewWithT(t)
		_, err := ConfigFromEnv(func(k string) string {
			if k == EnvPeers {
				return value
			}
			return ""
		})
		g.Expect(err).To(MatchError(ContainSubstring("SPILLWAY_BENCH_PEERS=")), value)
		g.Expect(err).To(MatchError(ContainSubstring(why)), value)
		g.Expect(err).To(MatchError(ContainSubstring(`example: SPILLWAY_BENCH_PEERS="1 10 25 50 100"`)), value)
	}
}

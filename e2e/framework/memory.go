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
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident set, in bytes.
type Memory struct {
	// Peak is VmHWM, the high-water mark since the process started.
	Peak int64
	// Current is VmRSS.
	Current int64
}

// ReadMemory reads the memory of a process from /proc/<pid>/status.
func ReadMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	return ParseStatus(string(data))
}

// ParseStatus extracts VmHWM and VmRSS from the text of /proc/<pid>/status.
func ParseStatus(status string) (Memory, error) {
	var m Memory
	var found int
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return Memory{}, fmt.Errorf("/proc status line %q: want \"<n> kB\"", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("/proc status line %q: %w", sc.Text(), err)
		}
		if key == "VmHWM" {
			m.Peak = kb * 1024
		} else {
			m.Current = kb * 1024
		}
		found++
	}
	if found != 2 {
		return Memory{}, fmt.Errorf("/proc status has no VmHWM and VmRSS lines (a kernel thread, or not Linux)")
	}
	return m, nil
}

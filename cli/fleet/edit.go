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

package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Edit changes files of one config folder and remembers what they were, so
// that a folder which no longer builds can be put back as it was.
type Edit struct {
	// Dir is the config folder.
	Dir   string
	saved map[string][]byte // nil value: the file did not exist
	order []string
}

// NewEdit starts an edit of dir, creating the folder when needed.
func NewEdit(dir string) (*Edit, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Edit{Dir: dir, saved: map[string][]byte{}}, nil
}

func (e *Edit) save(path string) error {
	if _, done := e.saved[path]; done {
		return nil
	}
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	e.saved[path] = raw
	e.order = append(e.order, path)
	return nil
}

// Write writes a file of the folder.
func (e *Edit) Write(name string, data []byte) error {
	p := filepath.Join(e.Dir, name)
	if err := e.save(p); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// Remove deletes a file of the folder; a missing file is not an error.
func (e *Edit) Remove(name string) error {
	p := filepath.Join(e.Dir, name)
	if err := e.save(p); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// AddResource lists name in the folder's kustomization, creating the
// kustomization when there is none. Listing it twice is a no-op.
func (e *Edit) AddResource(name string) (bool, error) { return e.resource(name, true) }

// RemoveResource drops name from the folder's kustomization.
func (e *Edit) RemoveResource(name string) (bool, error) { return e.resource(name, false) }

func (e *Edit) resource(name string, add bool) (bool, error) {
	p := KustomizationFile(e.Dir)
	raw, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if err != nil && !add {
		return false, nil
	}
	out, changed, err := withResource(raw, name, add)
	if err != nil {
		return false, fmt.Errorf("%s: %w", p, err)
	}
	if !changed {
		return false, nil
	}
	if err := e.save(p); err != nil {
		return false, err
	}
	return true, os.WriteFile(p, out, 0o644)
}

// Rollback puts every file the edit touched back as it was.
func (e *Edit) Rollback() error {
	var errs []error
	for i := len(e.order) - 1; i >= 0; i-- {
		p := e.order[i]
		if raw := e.saved[p]; raw == nil {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		} else if err := os.WriteFile(p, raw, 0o644); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Verify builds the folder and rolls the edit back when it no longer builds,
// so a command never leaves a folder Flux cannot apply.
func (e *Edit) Verify() error {
	if _, err := Build(e.Dir); err != nil {
		if rerr := e.Rollback(); rerr != nil {
			return errors.Join(err, fmt.Errorf("restoring %s: %w", e.Dir, rerr))
		}
		return fmt.Errorf("%w (the folder was left as it was)", err)
	}
	return nil
}

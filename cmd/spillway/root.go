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

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	defaultFleet = "./clusters"
)

// exitError carries an exit code; a nil err exits without a message (a plan
// that lists rejected changes has already said why).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a command that cannot run as asked: name the flag and
// the fix.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// failed reports a command that ran and failed.
func failed(err error) error {
	var e *exitError
	if err == nil || errors.As(err, &e) {
		return err
	}
	return &exitError{code: exitFailed, err: err}
}

// globalOptions are kubectl's flags for reaching a cluster.
type globalOptions struct {
	kubeconfig string
	context    string
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "spillway",
		Short: "Offload namespaces to peer clusters, through pull requests that Flux applies",
		Long: `spillway mirrors liqoctl's verbs, but writes manifests into the fleet
repository (clusters/<name>/config) instead of changing clusters: commit them,
open a pull request, and let "spillway plan" tell reviewers what it will do.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	root.PersistentFlags().StringVar(&g.context, "context", "", "the kubeconfig context to use (default: the current context)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v: see %s --help", err, c.CommandPath())
	})
	root.AddCommand(
		newOffloadCommand(),
		newUnoffloadCommand(),
		newPeerCommand(),
		newGenerateCommand(),
		newMoveCommand(),
		newPlanCommand(g),
		newStatusCommand(g),
	)
	return root
}

// run executes the CLI and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var e *exitError
	if !errors.As(err, &e) {
		// Errors cobra raises itself, such as unknown commands; its
		// suggestions span lines, and an error is one line.
		msg := strings.Join(strings.Fields(strings.Replace(err.Error(), "\n\nDid you mean this?\n", "; did you mean ", 1)), " ")
		e = &exitError{code: exitUsage, err: fmt.Errorf("%s: see spillway --help", msg)}
	}
	if e.err != nil {
		fmt.Fprintln(stderr, "spillway:", e.err)
	}
	return e.code
}

// exactArgs requires n arguments, named in the error.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return usageErrorf("%s takes %d argument(s) (%v), got %d: see %s --help", c.CommandPath(), len(names), names, len(args), c.CommandPath())
		}
		return nil
	}
}

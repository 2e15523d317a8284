// Package policies holds Spillway's pure decisions: which clusters a namespace
// is offloaded to, where a pod may be scheduled, what a provider offers. The
// webhooks, the controllers and the CLI's plan call the same functions, so a
// pull request's plan shows exactly what the cluster will do.
package policies

//! Placeholders (`{{.Name}}`, `{{.Labels.k}}`, …) in the runner container.

"""Rule catalog data (one YAML file per rule family), shipped as recipelint._catalog."""

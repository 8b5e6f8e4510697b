"""The repository's house rules: import contracts and function length."""

"""What shu asks: the question templates, one registry of what each is (`registry`), their
threshold and resolution rules (`star`, `rocm`) and resolving any question by its rule
(`resolution`)."""

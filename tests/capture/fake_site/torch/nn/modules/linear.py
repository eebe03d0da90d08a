class Linear:
    """Only its qualified name matters: nn_module_stack and source_fn_stack name the class."""

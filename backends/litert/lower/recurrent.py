"""recurrent ops: none lowered yet (each is Unsupported with the reason lower_graph gives)."""
LOWER: dict = {}
EMULATED: dict[str, str] = {}

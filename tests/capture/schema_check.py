"""A small JSON Schema checker for the keywords docs/origins-map.schema.json uses (no jsonschema
package on the machine). A keyword it does not know is an error, so it never passes by ignoring."""
import re

KNOWN = {"$schema", "$id", "title", "description", "type", "required", "properties",
         "additionalProperties", "items", "const", "minLength", "pattern", "minItems", "minimum"}

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def validate(instance, schema, path="$"):
    """The list of errors of ``instance`` against ``schema``; empty when it conforms."""
    if schema is True:
        return []
    if schema is False:
        return [f"{path}: not allowed here"]
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"schema keyword(s) this checker does not know: {sorted(unknown)}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](instance) for t in types):
            return [f"{path}: {type(instance).__name__}, expected {' or '.join(types)}"]
    errors = []
    if "const" in schema and instance != schema["const"]:
        errors.append(f"{path}: {instance!r}, expected {schema['const']!r}")
    if isinstance(instance, dict):
        errors += [f"{path}: missing member {k!r}" for k in schema.get("required", []) if k not in instance]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, value in instance.items():
            if key in properties:
                errors += validate(value, properties[key], f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: unknown member {key!r}")
            else:
                errors += validate(value, extra, f"{path}.{key}")
    if isinstance(instance, list):
        if len(instance) < schema.get("minItems", 0):
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(instance):
                errors += validate(item, schema["items"], f"{path}[{i}]")
    if isinstance(instance, str):
        if len(instance) < schema.get("minLength", 0):
            errors.append(f"{path}: shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], instance):
            errors.append(f"{path}: {instance!r} does not match {schema['pattern']}")
    if _TYPES["number"](instance) and "minimum" in schema and instance < schema["minimum"]:
        errors.append(f"{path}: {instance} is below {schema['minimum']}")
    return errors

"""Required code bindings, which neither validator package enforces."""


def binding_errors(required_codes, request_methods, resource_type, resource):
    """The codes of `resource` outside their required value sets: `required_codes` maps
    (resource type, element) to the codes allowed; a Bundle's entries' request methods must
    be among `request_methods`."""
    errors = []
    for (owner, field), codes in required_codes.items():
        if owner == resource_type and field in resource and resource[field] not in codes:
            errors.append(f"{field}: {resource[field]!r} is not in the required value set")
    if resource_type == "Bundle":
        for index, entry in enumerate(resource.get("entry", [])):
            method = entry.get("request", {}).get("method") if isinstance(entry, dict) else None
            if method is not None and method not in request_methods:
                errors.append(f"entry.{index}.request.method: {method!r} is not an HTTP verb this FHIR version allows")
    return errors

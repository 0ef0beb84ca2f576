# The layers of provision/, lowest first: a folder's targets are visible to the folders
# above it, never to those below (an include up the stack fails the build), and to the
# tests. cli/ is the //provision package itself (the binary). tests/layering/layers.py
# reads this list for its include check: the order is written here only.
PROVISION_LAYERS = [
    "base",
    "kernel",
    "verify",
    "config",
    "inputs",
    "inventory",
    "resolve",
    "plan",
    "apply",
    "image",
    "report",
    "cli",
]

def _package(layer):
    return "//provision:__pkg__" if layer == "cli" else "//provision/%s:__pkg__" % layer

def layer_visibility(layer):
    """Who may depend on a target of provision/<layer>: the layers above it and tests/."""
    above = PROVISION_LAYERS[PROVISION_LAYERS.index(layer) + 1:]
    return [_package(l) for l in above] + ["//tests:__subpackages__"]

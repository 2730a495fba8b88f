"""A whole nn.Module as torch.save pickles one: its torch class, then torch's attribute layout as its state.

torch.save(model) pickles the module object: its class by name (`torch.nn.modules.linear.Linear`, or the
script's own `__main__.Net`), made with no arguments, then its `__dict__`: the flags, the parameters,
buffers and submodules, the hook tables (empty) and the layer's own settings. torch.load reads that back
only with weights_only=False, by importing those classes (graphscope.load refuses it: it never runs a
file's code). The recurrent layers keep their weights in a layout graphscope does not, so they are refused.
"""

from __future__ import annotations

from collections import OrderedDict

from ..nn.module import Module
from .pickle_writer import Global, NewObject

# graphscope's layers whose torch file differs from graphscope's (torch.nn.modules.<file>).
TORCH_FILES = {"Flatten": "flatten", "Unflatten": "flatten"}
# Settings torch's layers keep that graphscope's do not (their values are the only ones graphscope offers).
TORCH_SETTINGS = {"Embedding": {"max_norm": None, "norm_type": 2.0, "scale_grad_by_freq": False, "sparse": False}}
# torch.nn.Module's hook tables, in its order (after _non_persistent_buffers_set); one is None, not a table.
HOOK_TABLES = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_is_full_backward_hook",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)
ENGINE = "graphscope.engine."


def reduce(module: Module) -> NewObject:
    """`module` spelled as torch pickles it; TypeError for a layer or state torch's layout can't hold."""
    cls = type(module)
    builtin = cls.__module__.startswith(ENGINE)
    if builtin and cls.__module__.rsplit(".", 1)[1].startswith("recurrent"):
        raise TypeError(
            f"graphscope.save cannot save a whole {cls.__name__}: torch keeps its weights in a layout graphscope "
            "does not; save the model's state_dict() instead, and load that into a new model"
        )
    own = vars(module)
    if own["_forward_pre_hooks"] or own["_forward_hooks"] or own["_backward_hooks"]:
        raise TypeError(
            f"graphscope.save cannot save a whole {cls.__name__} with hooks registered (torch would pickle "
            "the hook functions by name); remove them, or save the model's state_dict() instead"
        )
    registered = {*module._parameters, *module._buffers, *module._modules}
    state: dict = {
        "training": module.training,
        "_parameters": dict(module._parameters),
        "_buffers": dict(module._buffers),
        "_non_persistent_buffers_set": set(own["_non_persistent_buffers"]),
    }
    state.update({name: None if name == "_is_full_backward_hook" else OrderedDict() for name in HOOK_TABLES})
    state["_modules"] = dict(module._modules)
    engine_state = set(vars(Module()))
    for name, value in own.items():
        if name in registered or name in state or name in engine_state or name == "_has_hooks":
            continue
        if builtin and name.startswith("_"):  # graphscope's own bookkeeping, but conv's padding, torch's too
            if name == "_pad_twice":
                state["_reversed_padding_repeated_twice"] = value
            continue
        state[name] = value
    if builtin:
        state.update(TORCH_SETTINGS.get(cls.__name__, {}))
        torch_file = TORCH_FILES.get(cls.__name__, cls.__module__.rsplit(".", 1)[1])
        return NewObject(Global(f"torch.nn.modules.{torch_file}", cls.__name__), state)
    return NewObject(Global(cls.__module__, cls.__qualname__), state)

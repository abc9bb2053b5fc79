"""The tokens of the agents' action space (docs/AGENTS.md, "The action space"): a move is entered as a short
sequence of them. One table for the Python environments (khasino_sim/agents/actions.py) and the batched
environment's kernel (kernels/batch_env.py)."""

TOK_VALUES = 16             # build values 1..16 (Cassino's face values and ace 14 stay below it)
GROUP_END = 52              # tokens 0..51 are cards, by card index
TAKE_BUILD = 53             # + v - 1: the move captures the build of value v
TRAIL = TAKE_BUILD + TOK_VALUES
CAPTURE = TRAIL + 1
BUILD = CAPTURE + 1         # + V - 1
REBUILD = BUILD + TOK_VALUES
LOAD = REBUILD + TOK_VALUES
CHANGE = LOAD + TOK_VALUES
FOLLOW = CHANGE + TOK_VALUES
LEAD_0 = FOLLOW + TOK_VALUES
LEAD_1 = LEAD_0 + 1
STAY = LEAD_1 + 1
DECLINE = STAY + 1
END = DECLINE + 1
N_ACTIONS = END + 1
# A sequence's length: the card, its kind, a captured build, END (4), and per card it uses on the table at most
# 3 (the card, the GROUP_END of its group, the FOLLOW that opens it): at most 4 + 3 * 52 (docs/ENGINE.md).
MAX_SEQ = 4 + 3 * 52

"""The ground floor every family stands on; nothing here reads a family flag (`rules[R_FAMILY]` or a rule
option of one family).

- `layout`: offsets of the state vector, the ruleset record, move records, statistics rows and workspaces.
- `bits`, `multiset`: card sets as bit masks (one deck; Kasino's double deck as card counts).
- `rng`, `seeding`, `deal`: splitmix64 streams, game seeds from global indices, shuffling the deck and the unseen
  cards.
- `groups`: enumeration of the card groups that sum to a value (loose cards and pile prefixes).
- `offer`, `sink`, `tree`: a candidate move's key and features (`offer`), folded into the caller's sink as it
  is generated (a bot's running best, a listing window) or into a search tree.
- `heuristic`, `userbot`: bot weights and the call into a user's score function; `teams`: seats and teams;
  `workspace`: one thread's scratch.
"""

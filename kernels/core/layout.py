"""Fixed layouts of the flat int64 arrays the kernels share: state, ruleset record, move records, statistics.

The state is one int64 vector so a copy (for a rollout) is a single small array copy; every offset is a
module constant, which Numba folds into the compiled code. Sizes cover every registered format
(docs/ENGINE.md, "Growing the state").
"""

MAX_SEATS = 6
MAX_VALUE = 14          # builds are indexed by value 1..14 (Cassino: 13 with face_values, 14 with ace_14, P17)
MAX_GROUPS = 28         # groups one build can hold
MAX_PILE = 104          # a double deck
MAX_CARDS = 104

# ---- state vector -------------------------------------------------------------------------------------------
S_TO_MOVE = 0           # seat to play, -1 when the game is over
S_DEAL = 1              # 1-based deal number
S_LAST_CAP = 2          # seat of the last capture, -1 if none
S_OVER = 3              # 1 once the K12 sweep is made
S_STOCK_POS = 4         # next stock card to deal
S_STOCK_LEN = 5         # number of cards in the stock list
S_TURN = 6              # moves played so far
S_LAST_MOVER = 7        # seat that played the last card (P2)
S_LOOSE = 8             # loose cards, mask (card ids 0..63)
S_LOOSE_HI = 9          # second word for 104-card decks (unused by 40/52-card formats)
S_HANDS = 10            # hand masks: S_HANDS + 2*seat (+1 for the high word)
S_BOWNER = S_HANDS + 2 * MAX_SEATS                  # K2: owner of the build of value v at S_BOWNER + v, -1 none
S_BNG = S_BOWNER + MAX_VALUE + 1                    # number of groups of the build of value v
S_BGROUPS = S_BNG + MAX_VALUE + 1                   # group masks: S_BGROUPS + v*MAX_GROUPS + i, oldest first
S_PLEN = S_BGROUPS + (MAX_VALUE + 1) * MAX_GROUPS   # pile lengths per seat
S_PILE = S_PLEN + MAX_SEATS                         # pile cards: S_PILE + seat*MAX_PILE + i, bottom first
S_STOCK = S_PILE + MAX_SEATS * MAX_PILE             # stock card ids in deal order
S_PROMISED = S_STOCK + MAX_CARDS    # team formats (P13): bit v, the build of value v is promised by its owner
S_PROMISES = S_PROMISED + 1         # team formats (P13): per seat, bit v, an open promise of v (P14 reads it)
S_DEALER = S_PROMISES + MAX_SEATS   # the seat that dealt: the seat after it leads every deal (K14, P20)
S_ROUND = S_DEALER + 1              # Cassino (C7, P21): the round of the match, 1-based
S_SWEEPS = S_ROUND + 1              # Cassino `sweeps` (C1): per seat, sweeps made this round
S_SCORES = S_SWEEPS + MAX_SEATS     # Cassino (C7): per seat, match totals before this round (a team's in 4p)
# Kasino (N1-N7; the double deck's card sets are two words, `lo` every card present, `hi` those present twice):
# hands and the table use S_HANDS + 2*seat (+1) and S_LOOSE/S_LOOSE_HI; a pile is the multiset at
# S_PILE + seat*MAX_PILE (+1), its card count at S_PLEN + seat; S_LAST_MOVER is `last_player` (N4)
S_TABBE = S_SCORES + MAX_SEATS      # Kasino (N4): per seat, this round's tabbe plus at S_TABBE + 2*seat, minus at +1
S_ASIDE = S_TABBE + 2 * MAX_SEATS   # Kasino (N5): the face cards set aside this round (lo, hi)
S_ROUNDS = S_ASIDE + 2              # Kasino (N7): the match length in rounds
STATE_SIZE = S_ROUNDS + 1

# ---- ruleset record ------------------------------------------------------------------------------------------
R_SEATS = 0             # number of seats
R_DECK = 1              # 40 or 52
R_DEALS = 2             # number of deals
R_HAND = 3              # cards per seat per deal
R_TABLE_INIT = 4        # loose cards dealt to the table at the start
R_TRAIL_SAME = 5        # K11: no trail of a value present loose or as a build
R_TRAIL_OWN_FIRST = 6   # K11: no trail during the first deal while owning a build
R_MAX_BUILDS = 7        # builds a player may own at once, 0 = unlimited (K5, P6)
R_CHANGE = 8            # K7: 0 = simple two-card build, played card alone; 1 = any simple build, extra cards
R_FOLLOW = 9            # K9 follow-ups
R_PILES = 10            # K8: opponents' exposed pile cards usable
R_MAX_BUILD_VALUE = 11  # highest build value (10 in Khasino)
R_MOST_CARDS = 12       # points for most cards (K13)
R_MOST_SPADES = 13      # points for most spades
R_SPLIT_TIES = 14       # 1: a tie for most cards/spades splits the points
R_POINT_MASK = 15       # mask of the cards worth points
R_CARD_POINTS = 16      # points of card id c at R_CARD_POINTS + c (52 entries)
R_NEXT = R_CARD_POINTS + 52     # turn order (P8): the seat after seat s at R_NEXT + s
R_REFILL = R_NEXT + MAX_SEATS   # K16 stock: the player who acted draws to this many cards (0: no refill)
R_TIEBREAK = R_REFILL + 1       # P9: 1 = the winner is the best (points, cards, spades, holds 10D)
R_TEAMS = R_TIEBREAK + 1        # K15: 1 = seats play in teams (partner loads, rebuilds, Stay, team scoring)
R_TEAM = R_TEAMS + 1            # K15, C8: the team of seat s at R_TEAM + s (each seat its own team without teams)
R_PARTNER = R_TEAM + MAX_SEATS  # K15, C8: the partner of seat s at R_PARTNER + s (-1 without teams)
R_LEAD_CHOICE = R_PARTNER + MAX_SEATS   # P11: 1 = seat 0 chooses its team's leader, seat 0 or seat 1
R_FAMILY = R_LEAD_CHOICE + 1    # whose move rules: FAMILY_KHASINO (K3-K11) or FAMILY_CASSINO (C3-C6)
R_UNSUMMED = R_FAMILY + 1       # C1/P16: mask of the cards with no number (J, Q, K without face_values)
R_ACE_14 = R_UNSUMMED + 1       # C1/P17: an ace played from the hand may capture as 14
R_LOAD_OWNS = R_ACE_14 + 1      # C4: an add (load) makes the adder the build's owner
R_TRAIL_OWN_ANY = R_LOAD_OWNS + 1   # C6: no trail while owning a build, in any deal
R_SWEEPS = R_TRAIL_OWN_ANY + 1  # C1 `sweeps`: a capture that clears the table scores 1
R_MATCH_TARGET = R_SWEEPS + 1   # C7/P21: match totals needed to win (21); 0: no matches
R_LATER_HAND = R_MATCH_TARGET + 1  # Kasino (N1): cards each at every deal after the first (4)
R_MATCH_ROUNDS = R_LATER_HAND + 1   # Kasino (N7): rounds of a match (a multiple of the seats)
R_TABLE_TO_LAST = R_MATCH_ROUNDS + 1  # K12 `last_capturer_takes_table`: 1 = the last capturer takes what is left
                                      # on the table at the end (K12); 0 = nobody: it stays there, unscored
R_DEAL_LEADER = R_TABLE_TO_LAST + 1   # `next_deal_leader` (K14, P20): who leads each later deal: 0 the same seat
                                      # as the first (the seat after the dealer); 1 the lead passes to the next
                                      # seat in turn order each deal; 2 the last capturer (else as 0)
R_TABBE = R_DEAL_LEADER + 1         # Kasino `tabbe_value` (N4): a tabbe's points (5; a double tabbe twice them)
R_TABBE_FORCED = R_TABBE + 1        # Kasino `compulsory_tabbe` (N3): 1 = a card that can clear the table must
                                    # be played to clear it; 0 = clearing is one capture among the others
R_CARD_SETS = R_TABBE_FORCED + 1    # P27 (Cassino): piles and builds are card sets: a capture's table cards go on
                                    # the pile as one block, a build's groups leave no trace (its hash term is
                                    # Z(4, v, 0, its cards)), the end-of-round sweep puts each build as one block
RULES_SIZE = R_CARD_SETS + 1
FAMILY_KHASINO, FAMILY_CASSINO, FAMILY_KASINO = 0, 1, 2

# ---- move records ----------------------------------------------------------------------------------------------
# A move record is a fixed-size slice of int64: the head fields below, then its groups. The game path keeps
# exactly one record (the bot's running best, WS_BEST); listing writes a bounded chunk of them (WS_LIST).
KIND_CAPTURE, KIND_BUILD, KIND_LOAD, KIND_CHANGE, KIND_TRAIL = 0, 1, 2, 3, 4
KIND_NAMES = ("capture", "build", "load", "change", "trail")

M_CARD = 0              # played card id
M_KIND = 1
M_VALUE = 2             # capture: card value; build/load: build value; change: new value; trail: card value
M_TARGET = 3            # capture: captured build value (0 none); load: build value; change: old value
M_USED = 4              # mask of loose and pile cards the main action uses
M_GCOUNT = 5            # main-action groups (captured groups, or the new/added groups), at M_GROUPS
M_FCOUNT = 6            # follow-up groups, at M_FGROUPS (packed: mask | build value << VALUE_SHIFT)
M_KEY = 7               # the move key (docs/ENGINE.md), as the bits of an unsigned 64-bit integer
M_POINTS = 8            # greedy features
M_CARDS = 9
M_SPADES = 10
M_TABLE_POINTS = 11
M_PILE_USED = 12        # opponent pile cards the move uses
M_OWNER = 13            # build: the new build's owner (the mover, or his partner for a P14 rebuild)
# Kasino records: M_USED and M_PILE_USED hold the captured multiset (lo, hi words), M_TARGET the tabbe plus
M_TAKEN_LO, M_TAKEN_HI, M_TABBE = M_USED, M_PILE_USED, M_TARGET
M_GROUPS = 16
MAX_MOVE_GROUPS = 64    # groups of one move; bound in docs/ENGINE.md ("Scratch bounds"): at most 53
M_FGROUPS = M_GROUPS + MAX_MOVE_GROUPS
REC_SIZE = M_FGROUPS + MAX_MOVE_GROUPS

# ---- packed group words ------------------------------------------------------------------------------------------
# A group of table items (loose cards, exposed pile cards) is one int64: its card mask in bits 0..51, its sum in
# bits 52..55 and its source flags from bit 56 (FLAG_LOOSE: it holds a loose card; FLAG_LOOSE << 1+j: it holds
# a card of usable opponent pile j).
CARD_BITS = (1 << 52) - 1
VALUE_SHIFT = 52
FLAG_SHIFT = 56
FLAG_LOOSE = 1

# ---- per-game statistics row ---------------------------------------------------------------------------------
G_TURNS = 0
G_LAST_CAP = 1
G_NO_MOVE = 2           # positions with no legal move (K11 fallback); 0 in reachable play
G_OVERFLOW = 3          # a scratch buffer overflowed; the game is not exact and is reported as an error
G_WINNER = 4            # winning team: the winning seat without teams, 0 (AB) or 1 (CD) in 4p (-1: a tie)
G_BAD = 5               # positions failing the card-accounting check (when checking is on)
G_SEED = 6              # the game seed (bits of the unsigned 64-bit value)
G_LEADER = 7            # the seat that led the game (P10: a series chooses it; P11: team AB chose it)
G_ROUND = 8             # Cassino: the round of the match (1-based; 1 in every other format)
G_DEALER = 9            # the seat that dealt
G_MATCH_WINNER = 10     # Cassino: the match's winning team after this round (P21), -1 while it goes on
G_MATCH = 11            # Cassino: the match's index in its batch
G_LEADER2 = 12          # the seat that led the second deal (-1: a game of one deal; Cassino: of each round)
G_AHEAD1 = 13           # the team (seat) ahead when the first deal ends, on the points its piles would score
                        # then (K13 card points and majorities; -1: a tie, or a game of one deal)
G_SEAT0 = 14            # first per-seat block
(SEAT_SCORE, SEAT_CARDS, SEAT_SPADES, SEAT_ACES, SEAT_TWO_SPADES, SEAT_TEN_DIAMONDS, SEAT_MOST_CARDS,
 SEAT_MOST_SPADES, SEAT_CAPTURES, SEAT_BUILDS, SEAT_LOADS, SEAT_CHANGES, SEAT_BUILDS_CAPTURED,
 SEAT_PILE_TAKEN, SEAT_TRAILS, SEAT_FOLLOWUPS, SEAT_TEAM, SEAT_TEAM_SCORE, SEAT_STAY_OFFERS, SEAT_STAYS,
 SEAT_SWEEPS, SEAT_MATCH_TOTAL, SEAT_CARD_POINTS, SEAT_LAST_POINT, SEAT_TABBES, SEAT_TABBE_PLUS,
 SEAT_TABBE_MINUS) = range(27)
SEAT_FIELDS = 27
SEAT_FIELD_NAMES = ("score", "cards", "spades", "aces", "two_spades", "ten_diamonds", "most_cards",
                    "most_spades", "captures", "builds", "loads", "changes", "builds_captured",
                    "pile_cards_taken", "trails", "followups", "team", "team_score", "stay_offers", "stays",
                    "sweeps", "match_total", "card_points", "last_point", "tabbes", "tabbe_plus", "tabbe_minus")
STATS_SIZE = G_SEAT0 + MAX_SEATS * SEAT_FIELDS

# ---- decisions that are not card plays (4p, P11/P15): option keys Z(7, kind, option, 0), docs/ENGINE.md ----
DECISION_TAG = 7
DECIDE_LEAD, DECIDE_STAY = 0, 1

# ---- bots -----------------------------------------------------------------------------------------------------
BOT_RANDOM, BOT_GREEDY, BOT_HEURISTIC, BOT_ROLLOUT, BOT_ISMCTS, BOT_USER = 0, 1, 2, 3, 4, 5
# "file": a user bot (kernels/core/userbot.py)
BOT_NAMES = ("random", "greedy", "heuristic", "rollout", "ismcts", "file")

# ---- observation (what a seat sees, docs/ENGINE.md "Bots") -------------------------------------------------
O_SEAT = 0
O_HAND = 1
O_LOOSE = 2
O_DEAL = 3
O_STOCK_LEFT = 4
O_PILE_TOP = 5                          # per seat, -1 for an empty pile
O_PILE_LEN = O_PILE_TOP + MAX_SEATS
O_BOWNER = O_PILE_LEN + MAX_SEATS       # per value, -1 none
O_BCARDS = O_BOWNER + MAX_VALUE + 1     # per value, mask of the build's cards
O_HAND_SIZES = O_BCARDS + MAX_VALUE + 1
# Kasino's observation (N1-N7): its card sets are multisets of two words, `lo` every card present and `hi` the
# cards present twice (kernels/core/multiset.py); every pile's cards are public history (captures are made face up)
KO_SEAT = 0
KO_HAND = 1                             # lo, hi
KO_TABLE = 3                            # lo, hi
KO_ASIDE = 5                            # the face cards set aside this round (N5), lo, hi
KO_ROUND = 7
KO_ROUNDS = 8
KO_DEALER = 9
KO_LAST_PLAYER = 10                     # the seat that played last (N4: charged for the next tabbe)
KO_LAST_CAPTURER = 11                   # -1 none
KO_STOCK_LEFT = 12
KO_HAND_SIZES = 13                      # per seat
KO_PILE = KO_HAND_SIZES + MAX_SEATS     # per seat, lo, hi
KO_PILE_SIZES = KO_PILE + 2 * MAX_SEATS
KO_SCORES = KO_PILE_SIZES + MAX_SEATS   # per seat, match totals before this round (N7)
KO_TABBE = KO_SCORES + MAX_SEATS        # per seat, this round's tabbe plus, minus (N4)
KO_SIZE = KO_TABBE + 2 * MAX_SEATS
OBS_SIZE = max(O_HAND_SIZES + MAX_SEATS, KO_SIZE)

# ---- workspace: one flat int64 vector per thread holding every scratch buffer ---------------------------------
# (no array views are taken in the per-move path: a view costs two atomic reference-count updates).
# Every size is a proven bound, docs/ENGINE.md "Scratch bounds".
MAX_SUBSETS = 28944     # item subsets with sum <= the highest group value: 4,051 (40 cards), 28,937 (52 cards)
STACK_LEN = 64          # selection depth / groups of one move: at most 53
PREFIX_STRIDE = 64      # usable top cards of one opponent pile: at most 41

# sink: what happens to each candidate as it is generated (kernels/core/sink.py)
SINK_RANDOM, SINK_GREEDY, SINK_HEURISTIC, SINK_LIST, SINK_KEYS, SINK_TREE, SINK_SELECT, SINK_USER = range(8)

C_OVERFLOW = 0          # a scratch bound was exceeded (never in any registered format; a guard)
C_NOPP = 1              # opponents whose piles are usable
C_OPP = 2               # their seats
C_PMASK = C_OPP + MAX_SEATS          # mask of each opponent's reachable pile cards
C_PLEN = C_PMASK + MAX_SEATS         # each opponent's pile length
C_PREFIX = C_PLEN + MAX_SEATS        # C_PREFIX + j*PREFIX_STRIDE + k: mask of the top k cards of opponent j
C_BSTART = C_PREFIX + MAX_SEATS * PREFIX_STRIDE   # subsets with sum s: [ws[C_BSTART+s], ws[C_BEND+s]),
C_BMID = C_BSTART + MAX_VALUE + 3    # loose-only ones first, [C_BSTART+s, C_BMID+s), then those with a pile card
C_BEND = C_BMID + MAX_VALUE + 3
C_HV = C_BEND + MAX_VALUE + 3        # hand cards of each value
C_TABLE_POINTS = C_HV + MAX_VALUE + 1   # points on the table before the move
C_NSUB = C_TABLE_POINTS + 1
C_SUMS = C_NSUB + 1                  # bit s: some subset has sum s (bit 0: the empty set)
C_SUMS_LOOSE = C_SUMS + 1            # bit s: some subset of sum s holds a loose card
C_SUMS_LOOSE_ONLY = C_SUMS_LOOSE + 1  # bit s: some subset of sum s holds only loose cards (K9)
C_BUILT = C_SUMS_LOOSE_ONLY + 1      # bit v: a build of value v is on the table
C_HVMASK = C_BUILT + 1               # bit v: the mover holds a card of value v
C_CHANGEABLE = C_HVMASK + 1          # bit w: an opponent's simple build of value w (K7 candidates)
C_CTL = C_CHANGEABLE + 1             # 9 slots: three selection-stack controls (depth, next index), and
                                     # the several-pile search's (depth, next index, free pile closed)
C_SINK = C_CTL + 9                   # SINK_* mode
C_DRAW = C_SINK + 1                  # the decision's draw r (uint64 bits)
C_SEEN = C_DRAW + 1                  # candidates offered so far in this position (duplicates by key included)
C_FOUND = C_SEEN + 1                 # 1 once WS_BEST holds a candidate
C_BEST_H = C_FOUND + 1               # fmix(key ^ r) of the best so far (uint64 bits)
C_BEST_F = C_BEST_H + 1              # greedy: the best (points, cards, spades, -table_points) so far
C_LIST_LO = C_BEST_F + 4             # SINK_LIST: candidates [lo, hi) are written to WS_LIST; SINK_KEYS: the
C_LIST_HI = C_LIST_LO + 1            # class counted (residue lo, bits hi: hi grows as the class is split)
C_FEAT = C_LIST_HI + 1               # features of the main action being offered (4 slots)
C_BMASK = C_FEAT + 4                 # per build value: the build's cards (0 if none)
C_BHASH = C_BMASK + MAX_VALUE + 1    # per build value: its hash terms (owner and groups), uint64 bits
C_BPTS = C_BHASH + MAX_VALUE + 1     # per build value: card points in it
C_PITEMS = C_BPTS + MAX_VALUE + 1    # mask of every usable opponent pile card
C_OWNMASK = C_PITEMS + 1             # bit v: the mover owns the build of value v
# copies of the position and the ruleset the move rules read, so the functions below the hand loop take the
# workspace alone (each array argument costs a compiled call seven words)
C_LOOSE = C_OWNMASK + 1              # loose cards
C_MYPLEN = C_LOOSE + 1               # the mover's pile length
C_LASTCAP = C_MYPLEN + 1             # seat of the last capture, -1 none
C_MAXV = C_LASTCAP + 1               # the highest build value
C_FOLLOW = C_MAXV + 1                # K9 follow-ups on
C_BNGV = C_FOLLOW + 1                # per build value: its number of groups (0: no build)
C_BGRP = C_BNGV + MAX_VALUE + 1      # per build value: its groups, C_BGRP + v*MAX_GROUPS + i
C_PTMASK = C_BGRP + (MAX_VALUE + 1) * MAX_GROUPS  # cards worth points (greedy and listing sinks only)
C_CARDPTS = C_PTMASK + 1             # points of card id c at C_CARDPTS + c (greedy and listing sinks only)
C_ITEMH = C_CARDPTS + 52             # hash term of usable pile card c in place at C_ITEMH + c (uint64 bits)
C_KMAX = C_ITEMH + 64                # several usable opponent piles: per pile, the most top cards a selection
                                     # of the bucket being searched can use (the groups reach them without a gap)
C_PFORBID = C_KMAX + MAX_SEATS       # the usable pile cards below those depths (never in a selection)
C_MKOWNER = C_PFORBID + 1            # the owner a new build gets (the mover; his partner in a rebuild)
C_PARTNER_BUILDS = C_MKOWNER + 1     # bit v: the mover's partner owns the build of value v (K15 loads, P12)
C_PIDX_BUILT = C_PARTNER_BUILDS + 1  # bit v: the pile index of bucket v is built (reset per position)
C_PIDX_TOP = C_PIDX_BUILT + 1        # entries of WS_PIDX in use
PIDX_STRIDE = 66                     # the pile index's run bounds per bucket: one more than the 64 card ids, + 1
C_PIDX = C_PIDX_TOP + 1              # per bucket v: the run of its pile-card groups holding pile card x is
                                     # WS_PIDX[r[x] : r[x+1]], r = ws[C_PIDX + v*PIDX_STRIDE :]
C_LOADKEY = C_PIDX + (MAX_VALUE + 1) * PIDX_STRIDE  # per build value: the key terms of its owner's change when
                                     # the mover adds to it (Cassino, C4: z_build(v, owner) ^ z_build(v, mover)); 0
C_SWEEPS_ON = C_LOADKEY + MAX_VALUE + 1   # copy of R_SWEEPS (greedy: a sweep's point, C1)
C_CARD_SETS = C_SWEEPS_ON + 1        # copy of R_CARD_SETS (P27: builds and a capture's pile cards as card sets)
# Kasino (kernels/kasino/moves.py): the table cards as items 0..n-1, card index ascending, a card's second copy
# right after its first (at most 18 in reachable play, docs/ENGINE.md "Scratch bounds"; CARD_BITS items at most)
MAX_ITEMS = 52
C_KN = C_CARD_SETS + 1               # number of items
C_KVAL = C_KN + 1                    # table value of item i (A 1, J 11, Q 12, K 13) at C_KVAL + i
C_KBIT = C_KVAL + MAX_ITEMS          # card bit (1 << card index) of item i
C_KITEMH = C_KBIT + MAX_ITEMS        # key term of item i: Z(2, 0, card + 52 * copy, 0) (uint64 bits)
C_KPTS = C_KITEMH + MAX_ITEMS        # card points of item i (N6)
C_KSECOND = C_KPTS + MAX_ITEMS       # mask of the items that are a card's second copy
C_KACES = C_KSECOND + 1              # mask of the items that are aces
C_OURPTS = C_KACES + 1               # heuristic bot: card points in the builds the mover or his partner owns
# bots with parameters (khasino_sim/bots.py): a bot code >= BOT_TABLE_BASE is row code - BOT_TABLE_BASE of the
# workspace's bot table: its kind (BOT_*) then its parameters; the deciding bot's weights are copied to C_HW
BOT_TABLE_BASE = 16
BOT_TABLE_ROWS = 64
BOT_STRIDE = 11
H_POINTS, H_CARDS, H_SPADES, H_EXPOSED, H_OUR_POINTS, H_OUR_CARDS, H_KASINO_SETUP, H_PILE, H_RACES, H_SAFETY = \
    range(10)
C_PILE_EXPOSE = C_OURPTS + 1         # heuristic (K8): card points of the mover's exposed pile top (-1: no pile
                                     # use in this format, so a capture exposes nothing)
C_RACES = C_PILE_EXPOSE + 1          # heuristic (K13): bit 0, the most-cards race is open; bit 1, most spades
C_RISK = C_RACES + 1                 # heuristic `safety`: per build value v, the chance (thousandths) that an
                                     # opponent holds a card that captures a build of v (0 without `safety`)
C_HW = C_RISK + MAX_VALUE + 1        # the heuristic weights in force (10)
C_BOTTAB = C_HW + BOT_STRIDE         # the bot table: BOT_TABLE_ROWS rows of BOT_STRIDE
# search bots (kernels/khasino/search.py): the tree node being expanded, the iteration, the selection rule and its
# constant, the running choice (unexpanded?, its score, its draw hash), the key SINK_SELECT looks for, and
# where the search area starts in the workspace (after the fixed scratch) and how many nodes it holds
C_TNODE = C_BOTTAB + BOT_TABLE_ROWS * BOT_STRIDE
C_TITER = C_TNODE + 1
C_TSEL = C_TITER + 1                 # SEL_UCB or SEL_LEAST
C_TC = C_TSEL + 1                    # the UCB exploration constant, in hundredths
C_TNEW = C_TC + 1                    # 1: the running choice is an unexpanded move
C_TBEST = C_TNEW + 1                 # its score (UCB scaled by 2**32, or minus its visits)
C_TKEY = C_TBEST + 1                 # SINK_SELECT: the key wanted; SINK_TREE: the running choice's key
C_TCAP = C_TKEY + 1                  # nodes the search area holds
C_THASH = C_TCAP + 1                 # slots of its child table (a power of two)
C_REACH = C_THASH + 1                # per sum v: the union of its bucket's pile-card group words (prepare_items):
                                     # every usable pile card they hold, with loose cards and flags (mask it)
C_ABOVE = C_REACH + MAX_VALUE + 2    # per usable pile card c: the cards above it in its pile, C_ABOVE + c
# listing and counting (kernels/core/sink.py; docs/ENGINE.md "Listing"): the generator's loops return early once
# C_STOP is set (a listing window is full; 0 in every bot's mode); SINK_KEYS folds the keys of one class (key mod
# 2**C_LIST_HI == C_LIST_LO) into a key table of C_KMASK + 1 slots at WS_LIST, 0 marking an empty slot
C_STOP = C_ABOVE + 64
C_KCOUNT = C_STOP + 1                # keys in the key table
C_KZERO = C_KCOUNT + 1               # 1 once the key 0 (which the table cannot hold) was offered in the class
C_KMASK = C_KZERO + 1                # the key table's slots less one (a power of two less one)
CTX_SIZE = C_KMASK + 1

WS_RAW = CTX_SIZE                    # subsets in generation order (packed group words)
WS_RAWH = WS_RAW + MAX_SUBSETS       # their hash terms: the xor of their cards' terms in place (uint64 bits)
WS_SUB = WS_RAWH + MAX_SUBSETS       # the subsets bucketed by sum (loose-only part in descending mask order)
WS_SUBH = WS_SUB + MAX_SUBSETS       # their hash terms
WS_PIDX = WS_RAWH                    # several usable piles: the pile index (kernels/core/groups.py, `pile_index`):
                                     # bucket indices of pile-card groups, by bucket and pile card held; made
                                     # only after prepare_items, whose generation-order hash table it overwrites
WS_FOLLOW = WS_RAW                   # follow-up candidate groups (packed), at most one per subset: made only
                                     # after prepare_items, whose generation-order table they overwrite
WS_SEL1 = WS_SUBH + MAX_SUBSETS      # selection stacks (indices) and the union of cards at each depth
WS_USED1 = WS_SEL1 + STACK_LEN
WS_SEL2 = WS_USED1 + STACK_LEN + 1
WS_USED2 = WS_SEL2 + STACK_LEN
WS_SEL3 = WS_USED2 + STACK_LEN + 1
WS_USED3 = WS_SEL3 + STACK_LEN
WS_SEL4 = WS_USED3 + STACK_LEN + 1   # several usable piles: the search's stack (a group index, or -1 where a
WS_USED4 = WS_SEL4 + STACK_LEN       # pile was closed) and the cards used at each depth
WS_GBUF = WS_USED4 + STACK_LEN + 1   # the groups of the move being generated
WS_BEST = WS_GBUF + STACK_LEN        # the running best move record
WS_OBS = WS_BEST + REC_SIZE          # the observation handed to a bot
WS_CAND = WS_OBS + OBS_SIZE          # a user bot: the candidate move record it scores
WS_SIZE = WS_CAND + REC_SIZE
WS_LIST = WS_SIZE                    # a listing workspace is longer: the records of candidates [lo, hi)
                                     # (SINK_LIST) or the key table (SINK_KEYS) from here

# ---- search area (kernels/khasino/search.py, tree.py): from WS_SIZE, in a workspace made for a search bot -----------
# (core.workspace.new_workspace sizes it for the largest `n` of the search bots registered; docs/ENGINE.md "Search")
MAX_DEPTH = 2 * MAX_CARDS + 2        # decisions from any position to its end: card plays, a Stay after each, a lead
A_ST = WS_SIZE                       # the determinised position an iteration plays
A_ROW = A_ST + STATE_SIZE            # its statistics row (scoring)
A_REC = A_ROW + STATS_SIZE           # a pending Stay in an iteration: the mover's move record
A_ROOTREC = A_REC + REC_SIZE         # the Stay the search answers: the mover's move record (kept for the caller)
A_CARDS = A_ROOTREC + REC_SIZE       # the unseen cards, shuffled
A_REWARD = A_CARDS + MAX_CARDS       # the playout's reward per seat, in thousandths
A_PATH = A_REWARD + MAX_SEATS        # the nodes an iteration passed
A_NODES = A_PATH + MAX_DEPTH         # the tree: NODE_FIELDS per node, then the child table
N_KEY, N_PARENT, N_VISITS, N_AVAIL, N_WSUM, N_SEEN, N_SEAT = range(7)
NODE_FIELDS = 7
SEL_UCB, SEL_LEAST = 0, 1            # ismcts: UCB with availability counts; rollout: the least-tried move

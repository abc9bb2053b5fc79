"""What one seat sees of a position (docs/rules/project.md, "What bots see"; the same rule holds for a human
at the terminal): its own hand, the loose cards, the builds (value, owner, the promised mark; their cards in
Practice, only each build's exposed card in Classic), every pile's exposed top card where piles are face up
(the Khasino family, K8), pile sizes in Practice only, the other hands' and the stock's sizes, the match
scores, the last capturer. Never another hand, the stock order or a covered pile card.

The terminal draws a seat's screen from its view alone, so nothing hidden can reach the screen by mistake."""
from ..formats import get_format

MODES = ("practice", "classic")


def piles_face_up(fmt):
    """Whether captured piles lie face up with the top card exposed: the Khasino family (K8); Cassino's
    captures go face down (C3); Kasino's piles take no part in play."""
    return fmt.family == "khasino"


def seat_view(state, seat, mode="practice"):
    """The view of `seat` of the JSON `state` in `mode` (practice or classic): a dict holding only what that seat
    may see. In 4p a pending Stay decision is seen only by the partner it is asked of (P15)."""
    fmt = get_format(state["format"])
    practice = mode == "practice"
    face_up = piles_face_up(fmt)
    others = []
    for s, hand in enumerate(state["hands"]):
        pile = state["piles"][s]
        others.append({"seat": s, "hand_size": len(hand),
                       "pile_top": pile[-1] if pile and face_up else None,
                       "pile_size": len(pile) if practice else None})
    builds = []
    for b in state["table"]["builds"]:
        exposed = b["groups"][-1][-1] if b["groups"] and b["groups"][-1] else None
        builds.append({"value": b["value"], "owner": b["owner"], "promised": bool(b.get("promised")),
                       "groups": [list(g) for g in b["groups"]] if practice else None,
                       "exposed": exposed, "size": sum(len(g) for g in b["groups"]) if practice else None})
    view = {"format": fmt.name, "options": dict(state.get("options", {})), "seat": seat, "mode": mode,
            "deal": state.get("deal"), "deals": fmt.deals, "to_move": state.get("to_move"),
            "over": bool(state.get("over")), "hand": list(state["hands"][seat]), "seats": others,
            "loose": list(state["table"]["loose"]), "builds": builds, "stock_size": len(state.get("stock", [])),
            "last_capturer": state.get("last_capturer"), "teams": state.get("teams")}
    for key in ("round", "rounds", "dealer", "scores", "sweeps", "tabbe", "set_aside", "promises"):
        if key in state:
            view[key] = state[key]
    decision = state.get("decision")
    if decision is not None and (decision.get("kind") == "lead" or state.get("to_move") == seat):
        view["decision"] = decision
    return view


def visible_cards(view):
    """Every card name a view shows (its hand, loose cards, builds' shown cards, pile tops, set-aside cards, a
    decision's named move): what a seat may legitimately see printed."""
    out = set(view["hand"]) | set(view["loose"]) | set(view.get("set_aside") or [])
    for b in view["builds"]:
        out |= {c for g in (b["groups"] or []) for c in g} | ({b["exposed"]} if b["exposed"] else set())
    out |= {o["pile_top"] for o in view["seats"] if o["pile_top"]}
    move = (view.get("decision") or {}).get("move") or {}
    out |= {move.get("card")} - {None} | {c for g in move.get("groups", []) for c in g}
    return out

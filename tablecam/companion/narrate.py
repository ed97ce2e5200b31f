"""Rule events in words, for the page's banners and the terminal demo (English and French).

The rules engines give their reasons in English sentences; `reason()` translates the known
ones (and leaves an unknown one in English rather than hide it).
"""

from __future__ import annotations

import re

LANGUAGES = ("en", "fr")
COLOUR = {"en": {"W": "white", "B": "black"}, "fr": {"W": "blanc", "B": "noir"}}
STONE_COLOUR_FR = {"red": "rouge", "blue": "bleue", "green": "verte", "yellow": "jaune"}


def _tiles(n: int, lang: str = "en") -> str:
    if lang == "fr":
        return f"{n} tuile{'s' if n > 1 else ''}"
    return f"{n} tile{'s' if n != 1 else ''}"


def _points(n: int, lang: str) -> str:
    if lang == "fr":
        return f"{n} point{'s' if n > 1 else ''}"
    return f"{n} point{'s' if n != 1 else ''}"


def stone_colour(colour: str, lang: str = "en") -> str:
    return STONE_COLOUR_FR.get(colour, colour) if lang == "fr" else colour


# English reason (regular expression) -> French; groups are carried over.
_REASONS_FR: tuple[tuple[str, str], ...] = (
    (r"occupied: cell \((-?\d+), (-?\d+)\) already holds a tile", r"case occupée : la case (\1, \2) porte déjà une tuile"),
    (r"not touching: the tile must touch the board edge to edge",
     "pas de contact : la tuile doit toucher le plateau par un bord"),
    (r"colour clash: a white micropul would face a black micropul",
     "couleurs opposées : un micropul blanc toucherait un micropul noir"),
    (r"colour clash: a black micropul would face a white micropul",
     "couleurs opposées : un micropul noir toucherait un micropul blanc"),
    (r"no same-colour contact: none of its micropul faces a micropul of its colour",
     "aucun contact de même couleur : aucun de ses micropuls ne touche un micropul de sa couleur"),
    (r"no (\w+) stone left to place", r"plus de pierre \1 à poser"),
    (r"a stone must go on a micropul", "une pierre se pose sur un micropul"),
    (r"that group already carries a stone", "ce groupe porte déjà une pierre"),
    (r"no player has (\w+) stones", r"aucun joueur n'a de pierres \1"),
    (r"a new tile at cell \((-?\d+), (-?\d+)\) could not be read", r"la nouvelle tuile en (\1, \2) est illisible"),
    (r"the tile at cell \((-?\d+), (-?\d+)\) shows a face no micropul tile has",
     r"la tuile en (\1, \2) montre une face qu'aucune tuile micropul n'a"),
    (r"the tile at cell \((-?\d+), (-?\d+)\) is already on the board", r"la tuile en (\1, \2) est déjà sur le plateau"),
)
_PARTS_FR: tuple[tuple[str, str], ...] = (
    (r"(\d+) tiles appeared at once", r"\1 tuiles sont apparues d'un coup"),
    (r"a tile appeared at cell \((-?\d+), (-?\d+)\)", r"une tuile est apparue en (\1, \2)"),
    (r"(\d+) tiles? vanished", r"\1 tuile(s) disparue(s)"),
    (r"the tile at cell \((-?\d+), (-?\d+)\) changed its face", r"la tuile en (\1, \2) a changé de face"),
    (r"(\d+) stones? appeared", r"\1 pierre(s) apparue(s)"),
    (r"(\d+) stones? vanished", r"\1 pierre(s) disparue(s)"),
)
_TAIL_EN = (": more than one move since the last stable view, taken as played one after the other, please check the table",
            ": more than one move since the last stable view, please check the table")
_TAIL_FR = (" : plus d'un coup depuis la dernière vue stable, joués l'un après l'autre, vérifiez la table",
            " : plus d'un coup depuis la dernière vue stable, vérifiez la table")


def reason(text: str, lang: str = "en") -> str:
    """A rules engine's reason in the page's language (unknown reasons stay as they are)."""
    if lang != "fr" or not text:
        return text
    for pattern, french in _REASONS_FR:
        if re.fullmatch(pattern, text):
            return re.sub(pattern, french, text)
    for tail_en, tail_fr in zip(_TAIL_EN, _TAIL_FR):
        if text.endswith(tail_en):
            parts = text[: -len(tail_en)].split("; ")
            out = []
            for part in parts:
                for pattern, french in _PARTS_FR:
                    if re.fullmatch(pattern, part):
                        part = re.sub(pattern, french, part)
                        break
                out.append(part)
            return "; ".join(out) + tail_fr
    return text


def micropul(event: dict, lang: str = "en") -> str:
    """One sentence (or two) saying what a micropul replay event means for the players."""
    if lang == "fr":
        return _micropul_fr(event)
    kind = event["event"]
    if kind == "placement":
        if not event["legal"]:
            return f"Illegal placement: {event['reason']}. Take the tile back."
        parts = ["Tile placed"]
        todo = []
        if event["draw"]:
            todo.append(f"draw {_tiles(event['draw'])} into your reserve")
        if event["extra_turns"]:
            todo.append("play again" if event["extra_turns"] == 1 else f"play {event['extra_turns']} more turns")
        for group in event["closed_groups"]:
            owner = group["owner"]
            worth = _points(group["points"], "en")
            if owner:
                parts.append(f"closes a {COLOUR['en'][group['colour']]} group worth {worth} for {owner}")
            elif group.get("stones", 0) > 1:
                parts.append(f"closes a {COLOUR['en'][group['colour']]} group with {group['stones']} stones: it scores nothing")
            else:
                parts.append(f"closes an unclaimed {COLOUR['en'][group['colour']]} group of {worth}")
        sentence = ", ".join(parts) + "."
        if todo:
            sentence += " " + " and ".join(todo).capitalize() + "."
        return sentence + f" {event['core_left']} left in the core."
    if kind == "stone":
        if event["legal"]:
            return f"A {event['colour']} stone claims a group."
        return f"Illegal stone: {event['reason']}. Take it back."
    if kind == "removed":
        what = "tile" if event.get("what", "tile") == "tile" else "stone"
        return f"The illegal {what} was taken back." if not event["was_legal"] else f"A {what} was taken off the board."
    if kind == "unexplained":
        return f"Please check the table: {event['reason']}."
    if kind == "accepted":
        return f"The players confirmed the table as it is: {_tiles(event['tiles'])}, {event['stones']} stone{'s' if event['stones'] != 1 else ''}."
    if kind == "final":
        if "ranking" in event:
            ranks = ", ".join(f"{r['name']} ({r['stone_colour']}) {r['score']}" for r in event["ranking"])
            return f"Game over. Ranking: {ranks}."
        points = ", ".join(f"{c} {p}" for c, p in event["group_points"].items()) or "none"
        return f"Game over. Group points: {points}; {event['core_left']} tiles left in the core."
    return kind


def _micropul_fr(event: dict) -> str:
    kind = event["event"]
    colour = COLOUR["fr"]
    if kind == "placement":
        if not event["legal"]:
            return f"Pose illégale : {reason(event['reason'], 'fr')}. Reprenez la tuile."
        parts = ["Tuile posée"]
        todo = []
        if event["draw"]:
            todo.append(f"piochez {_tiles(event['draw'], 'fr')} dans votre réserve")
        if event["extra_turns"]:
            todo.append("rejouez" if event["extra_turns"] == 1 else f"jouez encore {event['extra_turns']} tours")
        for group in event["closed_groups"]:
            owner = group["owner"]
            worth = _points(group["points"], "fr")
            if owner:
                parts.append(f"ferme un groupe {colour[group['colour']]} de {worth} pour {stone_colour(owner, 'fr')}")
            elif group.get("stones", 0) > 1:
                parts.append(f"ferme un groupe {colour[group['colour']]} à {group['stones']} pierres : il ne rapporte rien")
            else:
                parts.append(f"ferme un groupe {colour[group['colour']]} sans pierre de {worth}")
        sentence = ", ".join(parts) + "."
        if todo:
            sentence += " " + " et ".join(todo).capitalize() + "."
        return sentence + f" Il reste {event['core_left']} dans la pioche."
    if kind == "stone":
        if event["legal"]:
            return f"Une pierre {stone_colour(event['colour'], 'fr')} revendique un groupe."
        return f"Pierre illégale : {reason(event['reason'], 'fr')}. Reprenez-la."
    if kind == "removed":
        what = "tuile" if event.get("what", "tile") == "tile" else "pierre"
        if not event["was_legal"]:
            return f"La {what} illégale a été reprise."
        return f"Une {what} a été retirée du plateau."
    if kind == "unexplained":
        return f"Vérifiez la table : {reason(event['reason'], 'fr')}."
    if kind == "accepted":
        return f"Les joueurs ont confirmé la table telle quelle : {_tiles(event['tiles'], 'fr')}, {event['stones']} pierre(s)."
    if kind == "final":
        if "ranking" in event:
            ranks = ", ".join(f"{r['name']} ({stone_colour(r['stone_colour'], 'fr')}) {r['score']}" for r in event["ranking"])
            return f"Partie terminée. Classement : {ranks}."
        points = ", ".join(f"{c} {p}" for c, p in event["group_points"].items()) or "aucun"
        return f"Partie terminée. Points des groupes : {points} ; {event['core_left']} tuiles dans la pioche."
    return kind


# ---- ENIX, Stixx, Enigmo ------------------------------------------------------------------------------
# The engines' reasons are English sentences with every detail; the French sentence is built from
# the event's fields and keeps the engine's reason (in English) only where the detail matters.

STICK_COLOUR_FR = {"red": "rouge", "orange": "orange", "yellow": "jaune", "green": "vert", "blue": "bleu",
                   "purple": "violet", "grey": "gris"}


def _stick(colour: str | None, lang: str) -> str:
    colour = colour or "?"
    return STICK_COLOUR_FR.get(colour, colour) if lang == "fr" else colour


def _common(event: dict, lang: str) -> str | None:
    kind = event["event"]
    if kind == "unexplained":
        return f"Vérifiez la table : {event['reason']}." if lang == "fr" else f"Please check the table: {event['reason']}."
    if kind == "unreadable":
        return (f"Lecture ignorée : {event['reason']}." if lang == "fr"
                else f"Reading not used: {event['reason']}.")
    return None


def stixx(event: dict, lang: str = "en") -> str:
    """One sentence saying what a Stixx replay event means for the players."""
    said = _common(event, lang)
    if said is not None:
        return said
    kind, fr = event["event"], lang == "fr"
    if kind == "setup":
        if event["legal"]:
            return "Plateau prêt : prenez n'importe quel bâton pour commencer." if fr else "Board ready: take any stick to begin."
        return f"Plateau incorrect : {event['reason']}." if fr else f"The board is not set up right: {event['reason']}."
    if kind == "pick":
        who, slot, colour = event["player"] or "?", event["slot"], _stick(event["colour"], lang)
        if not event["legal"]:
            if fr:
                return f"Prise illégale : {who} a pris le bâton {colour} de la rainure {slot}, qui ne touche pas le marqueur ({event['reason']})."
            return f"Illegal pick: {event['reason']}."
        return (f"{who} a pris le bâton {colour} (rainure {slot})." if fr
                else f"{who} took the {colour} stick (slot {slot}).")
    if kind == "move":
        who = event["player"] or "?"
        if not event["legal"]:
            return f"Déplacement illégal : {event['reason']}." if fr else f"Illegal move: {event['reason']}."
        return (f"{who} a déplacé un bâton de {event['from']} à {event['to']}." if fr
                else f"{who} moved a stick from {event['from']} to {event['to']}.")
    if kind == "declare":
        return f"Annonce : {event['reason']}." if fr else f"{event['reason'][:1].upper()}{event['reason'][1:]}."
    if kind == "end":
        if event["winners"]:
            names = ", ".join(event["winners"])
            several = len(event["winners"]) > 1
            if fr:
                return f"Partie terminée : {names} {'gagnent' if several else 'gagne'}."
            return f"Game over: {names} {'win' if several else 'wins'} ({event['reason'].split('; ')[-1]})."
        why = event["reason"].removeprefix("the game is over: ")
        return (f"Partie terminée : {why}." if fr else f"Game over: {why}.")
    return kind


def enigmo(event: dict, lang: str = "en") -> str:
    """One sentence saying what an Enigmo replay event means for the players."""
    said = _common(event, lang)
    if said is not None:
        return said
    kind, fr = event["event"], lang == "fr"
    if kind == "roll":
        a, b = event["dice"]
        ways = " ou ".join("+".join(map(str, w)) for w in event["options"]) if fr else \
            " or ".join("+".join(map(str, w)) for w in event["options"])
        who = event["player"] or "?"
        if not event["options"]:
            return f"{who} a fait {a} et {b} : aucun volet à ouvrir." if fr else f"{who} rolled {a} and {b}: no shutter to open."
        return (f"{who} a fait {a} et {b} : ouvrez le volet {ways}." if fr
                else f"{who} rolled {a} and {b}: open shutter {ways}.")
    if kind == "open":
        opened = "+".join(map(str, event["opened"])) or "—"
        if not event["legal"]:
            return (f"Volet interdit ({opened}) : {event['reason']}." if fr
                    else f"Wrong shutter ({opened}): {event['reason']}.")
        if not event["complete"]:
            return f"Volet {opened} ouvert : ouvrez l'autre aussi." if fr else f"Shutter {opened} open: open the other one too."
        return (f"Volet {opened} ouvert : {_points(event['at_stake'], 'fr')} en jeu." if fr
                else f"Shutter {opened} open: {_points(event['at_stake'], 'en')} at stake.")
    if kind == "guess":
        who, pts = event["player"], event["points"]
        red = (" (mot rouge : doublé)" if fr else " (red word: doubled)") if event["red"] else ""
        if event["right"]:
            return (f"{who} a trouvé le mot : +{pts}{red}. {event['next']} lance ensuite." if fr
                    else f"{who} found the word: +{pts}{red}. {event['next']} rolls next.")
        return (f"{who} s'est trompé : {pts}{red}. {event['next']} lance ensuite." if fr
                else f"{who} missed the word: {pts}{red}. {event['next']} rolls next.")
    if kind == "final":
        scores = ", ".join(f"{p} {s}" for p, s in event["scores"].items())
        winners = ", ".join(event["winners"]) or ("personne" if fr else "nobody")
        return (f"Partie terminée. Gagnant : {winners}. Scores : {scores}." if fr
                else f"Game over. Winner: {winners}. Scores: {scores}.")
    return kind


def with_names(text: str, names: dict[str, str]) -> str:
    """ENIX says players by pawn colour: add the name ("the red pawn" -> "the red pawn (Ann)")."""
    for colour, name in names.items():
        text = re.sub(rf"\b{re.escape(colour)}\b(?! \()", f"{colour} ({name})", text)
    return text


def enix(event: dict, lang: str = "en") -> str:
    """One sentence saying what an ENIX replay event means for the players."""
    said = _common(event, lang)
    if said is not None:
        return said
    kind, fr = event["event"], lang == "fr"
    if kind == "layout":
        if event["kind"] == "setup":
            return (f"Mise en place {'correcte' if event['legal'] else 'incorrecte'} : {event['reason']}." if fr
                    else f"Setup {'correct' if event['legal'] else 'not correct'}: {event['reason']}.")
        if not event["legal"]:
            return (f"Action de tuile illégale : {event['reason']}. Remettez la tuile." if fr
                    else f"Illegal tile action: {event['reason']}. Put the tile back.")
        what = {"rotate": ("tournée", "turned"), "move": ("déplacée", "moved")}.get(event["kind"], (event["kind"],) * 2)
        return (f"Tuile {event['tile']} {what[0]} : légal." if fr else f"{event['tile']} {what[1]}: legal.")
    if kind == "pawn_move":
        if event["legal"]:
            return (f"Pion {event['colour']} : {event['from']} → {event['to']}, légal (total {event['total']})." if fr
                    else f"The {event['colour']} pawn walked {event['from']} → {event['to']}: legal (total {event['total']}).")
        return (f"Marche du pion {event['colour']} illégale : {event['reason']}." if fr
                else f"Illegal walk: {event['reason']}.")
    if kind == "order":
        if event.get("order"):
            order = ", ".join(event["order"])
            return f"Ordre de jeu : {order}." if fr else f"Order of play: {order}."
        battle = " ; ".join(" & ".join(group) for group in event.get("battle") or [])
        return (f"Égalité, bataille : {battle} ajoutent une carte." if fr
                else f"Tie, battle: {battle} add a card.")
    if kind == "cap":
        if event["on"]:
            return (f"Le chapeau est sur {event['on']} : aucun pion n'y entre ni n'en sort." if fr
                    else f"The cap is on {event['on']}: no pawn may enter or leave it.")
        return "Le chapeau est retiré." if fr else "The cap was taken off."
    if kind == "final":
        if not event.get("scores"):
            return f"Fin de partie : {event['reason']}." if fr else f"Game over: {event['reason']}."
        winners = ", ".join(event["winners"]) or ("personne" if fr else "nobody")
        scores = ", ".join(f"{c} {s}" for c, s in event["scores"].items())
        return (f"Partie terminée. Gagnant : {winners}. Scores : {scores}. {event['reason']}." if fr
                else f"Game over. Winner: {winners}. Scores: {scores}. {event['reason'][:1].upper()}{event['reason'][1:]}.")
    return kind

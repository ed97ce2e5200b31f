"""The page's words in English and French.

The server sends every sentence it makes in both languages (`both()`), so each tablet shows
its own choice without asking again; the page's fixed labels come from `STRINGS` too.
"""

from __future__ import annotations

from typing import Callable

from tablecam.companion.narrate import LANGUAGES

STRINGS: dict[str, dict[str, str]] = {
    "title": {"en": "tablecam", "fr": "tablecam"},
    "new_game": {"en": "New game", "fr": "Nouvelle partie"},
    "start": {"en": "Start", "fr": "Commencer"},
    "cancel": {"en": "Cancel", "fr": "Annuler"},
    "game": {"en": "Game", "fr": "Jeu"},
    "players": {"en": "Players", "fr": "Joueurs"},
    "player": {"en": "Player", "fr": "Joueur"},
    "name": {"en": "Name", "fr": "Nom"},
    "colour": {"en": "Stones", "fr": "Pierres"},
    "add_player": {"en": "Add a player", "fr": "Ajouter un joueur"},
    "remove_player": {"en": "Remove", "fr": "Retirer"},
    "pin": {"en": "PIN", "fr": "Code"},
    "pin_prompt": {"en": "Enter the PIN shown on the Pi's console", "fr": "Entrez le code affiché sur la console du Pi"},
    "pin_first_run": {"en": "First run: the PIN for changes on this table is", "fr": "Premier lancement : le code pour modifier est"},
    "pin_wrong": {"en": "Wrong PIN.", "fr": "Code erroné."},
    "score": {"en": "Score", "fr": "Score"},
    "hand": {"en": "Hand", "fr": "Main"},
    "reserve": {"en": "Reserve", "fr": "Réserve"},
    "stones_left": {"en": "Stones", "fr": "Pierres"},
    "core_left": {"en": "Tiles left in the core", "fr": "Tuiles dans la pioche"},
    "history": {"en": "History", "fr": "Historique"},
    "undo": {"en": "Undo", "fr": "Annuler"},
    "undone": {"en": "undone", "fr": "annulé"},
    "confirm": {"en": "This is right", "fr": "C'est juste"},
    "took_reserve": {"en": "I took a tile from my reserve", "fr": "J'ai pris une tuile de ma réserve"},
    "correct_counts": {"en": "Correct counts", "fr": "Corriger les nombres"},
    "save": {"en": "Save", "fr": "Enregistrer"},
    "end_game": {"en": "End the game", "fr": "Finir la partie"},
    "ranking": {"en": "Final ranking", "fr": "Classement final"},
    "live": {"en": "Live picture", "fr": "Image en direct"},
    "dark": {"en": "Dark", "fr": "Sombre"},
    "language": {"en": "Français", "fr": "English"},
    "no_game": {"en": "No game in progress. Start a new game.", "fr": "Aucune partie en cours. Commencez une nouvelle partie."},
    "to_move": {"en": "to play", "fr": "à jouer"},
    "zoom_table": {"en": "Whole table", "fr": "Toute la table"},
    "zoom_board": {"en": "Zoom on the board", "fr": "Zoom sur le plateau"},
    "camera_starting": {"en": "Waiting for the camera's first picture…", "fr": "En attente de la première image…"},
    "connection_lost": {"en": "Connection to the table lost: reconnecting…", "fr": "Connexion à la table perdue : reconnexion…"},
    # Phases of the tracker, said to the players.
    "phase_steady": {"en": "Table read", "fr": "Table lue"},
    "phase_changing": {"en": "Looking…", "fr": "Lecture…"},
    "phase_hands": {"en": "Hands on the table", "fr": "Mains sur la table"},
    "phase_no_reading": {"en": "Cannot read the table", "fr": "Table illisible"},
    "phase_waiting": {"en": "Waiting for the board", "fr": "En attente du plateau"},
    # Sentences the server builds.
    "turn": {"en": "{name}: your turn: play a tile, lay a stone or take a tile from your reserve.",
             "fr": "{name} : à vous : posez une tuile, une pierre ou prenez une tuile de votre réserve."},
    "again": {"en": "{name}: play again.", "fr": "{name} : rejouez."},
    "draw_then": {"en": "{name}: draw {n} into your reserve.", "fr": "{name} : piochez {n} dans votre réserve."},
    "take_back_tile": {"en": "Take the illegal tile back.", "fr": "Reprenez la tuile illégale."},
    "take_back_stone": {"en": "Take the illegal stone back.", "fr": "Reprenez la pierre illégale."},
    "check_table": {"en": "Check the table, then tap \u201cThis is right\u201d if it is.",
                    "fr": "Vérifiez la table, puis touchez « C'est juste » si elle l'est."},
    "took_reserve_done": {"en": "{name} took a tile from the reserve.", "fr": "{name} a pris une tuile de sa réserve."},
    "counts_done": {"en": "Counts corrected for {name}: hand {hand}, reserve {reserve}.",
                    "fr": "Nombres corrigés pour {name} : main {hand}, réserve {reserve}."},
    "turn_done": {"en": "Turn given to {name}.", "fr": "Tour donné à {name}."},
    "finished_by_players": {"en": "The players ended the game.", "fr": "Les joueurs ont fini la partie."},
    "core_empty": {"en": "The last tile of the core was drawn.", "fr": "La dernière tuile de la pioche a été tirée."},
    "out_of_tiles": {"en": "{name} has no tile left in hand or reserve and loses: if so, tap “End the game”; if not, correct the counts.",
                     "fr": "{name} n'a plus de tuile en main ni en réserve et perd : si c'est le cas, touchez « Finir la partie » ; sinon, corrigez les nombres."},
    "game_started": {"en": "New game of {game}: {names}.", "fr": "Nouvelle partie de {game} : {names}."},
    "camera_reopening": {"en": "The camera stopped delivering pictures: reopening it (try {n}).",
                         "fr": "La caméra ne donne plus d'images : réouverture (essai {n})."},
    "camera_ok": {"en": "Camera: {name}", "fr": "Caméra : {name}"},
    "no_detector": {"en": "No recogniser for {game} is installed yet.", "fr": "Aucun lecteur pour {game} n'est encore installé."},
    # ENIX, Stixx, Enigmo.
    "tap_noted": {"en": "Noted.", "fr": "Noté."},
    "stixx_lay_board": {"en": "Lay the board with its 42 sticks.", "fr": "Posez le plateau et ses 42 bâtons."},
    "stixx_first_pick": {"en": "{name}: take any stick to begin.", "fr": "{name} : prenez n'importe quel bâton pour commencer."},
    "stixx_pick": {"en": "{name}: take a stick touching the marker ({n} this turn).",
                   "fr": "{name} : prenez un bâton qui touche le marqueur ({n} ce tour)."},
    "stixx_reveal_to_win": {"en": "Game over: {names}, show your colour to call the winner.",
                            "fr": "Partie terminée : {names}, montrez votre couleur pour désigner le gagnant."},
    "stixx_reveal": {"en": "I show my colour", "fr": "Je montre ma couleur"},
    "stixx_guess": {"en": "I name a colour", "fr": "Je nomme une couleur"},
    "stixx_of": {"en": "whose", "fr": "de qui"},
    "stixx_may_take": {"en": "May be taken", "fr": "À prendre"},
    "stixx_taken": {"en": "Taken", "fr": "Pris"},
    "stixx_own": {"en": "own colour", "fr": "sa couleur"},
    "right": {"en": "Right", "fr": "Juste"},
    "wrong": {"en": "Wrong", "fr": "Faux"},
    "who": {"en": "Who", "fr": "Qui"},
    "enigmo_roll": {"en": "{name}: roll the dice.", "fr": "{name} : lancez les dés."},
    "enigmo_open": {"en": "{name}: open shutter {ways}.", "fr": "{name} : ouvrez le volet {ways}."},
    "enigmo_word": {"en": "Find the word: {points} points at stake ({red} if printed in red).",
                    "fr": "Trouvez le mot : {points} points en jeu ({red} s'il est imprimé en rouge)."},
    "enigmo_at_stake": {"en": "At stake", "fr": "En jeu"},
    "enigmo_round": {"en": "Round", "fr": "Manche"},
    "enigmo_dice": {"en": "Dice", "fr": "Dés"},
    "enigmo_red": {"en": "red word", "fr": "mot rouge"},
    "enigmo_found": {"en": "found the word", "fr": "a trouvé le mot"},
    "enigmo_missed": {"en": "missed the word", "fr": "s'est trompé"},
    "enigmo_row_ask": {"en": "The camera does not know where the shutters are yet: tap \u201cMark the shutter row\u201d, then the row's four corners on the picture.",
                       "fr": "La caméra ne sait pas encore où sont les volets : touchez « Marquer les volets », puis les quatre coins de la rangée sur l'image."},
    "enigmo_mark_row": {"en": "Mark the shutter row", "fr": "Marquer les volets"},
    "enigmo_tap_1": {"en": "Tap the TOP-LEFT corner of the row of ten shutters on the picture (1 of 4).",
                     "fr": "Touchez sur l'image le coin EN HAUT À GAUCHE de la rangée de dix volets (1 sur 4)."},
    "enigmo_tap_2": {"en": "Tap the TOP-RIGHT corner of the shutter row (2 of 4).",
                     "fr": "Touchez le coin EN HAUT À DROITE de la rangée de volets (2 sur 4)."},
    "enigmo_tap_3": {"en": "Tap the BOTTOM-RIGHT corner of the shutter row (3 of 4).",
                     "fr": "Touchez le coin EN BAS À DROITE de la rangée de volets (3 sur 4)."},
    "enigmo_tap_4": {"en": "Tap the BOTTOM-LEFT corner of the shutter row (4 of 4).",
                     "fr": "Touchez le coin EN BAS À GAUCHE de la rangée de volets (4 sur 4)."},
    "enigmo_row_saved": {"en": "Shutter row saved: the shutters are read from the picture.",
                         "fr": "Rangée de volets enregistrée : les volets sont lus sur l'image."},
    "enix_setup": {"en": "Lay the six tiles: solar in the middle, the five others around it.",
                   "fr": "Posez les six tuiles : le solaire au milieu, les cinq autres autour."},
    "enix_reveal": {"en": "Reveal your cards at your seat.", "fr": "Révélez vos cartes devant vous."},
    "enix_order": {"en": "Order of play: {names}.", "fr": "Ordre de jeu : {names}."},
    "enix_ended": {"en": "{name} ends the game: lay your cards face up at your seats, then tap \u201cEnd the game\u201d.",
                   "fr": "{name} termine la partie : étalez vos cartes face visible, puis touchez « Finir la partie »."},
    "enix_lay_out": {"en": "{name} ended the game: lay your cards face up, then tap \u201cEnd the game\u201d.",
                     "fr": "{name} a terminé : étalez vos cartes face visible, puis touchez « Finir la partie »."},
    "enix_no_hands": {"en": "No hands were seen laid out: no score.", "fr": "Aucune main vue étalée : pas de score."},
    "enix_end": {"en": "I end the game", "fr": "Je termine la partie"},
    "enix_total": {"en": "Total", "fr": "Total"},
    "enix_on": {"en": "on", "fr": "sur"},
    "enix_walks_for": {"en": "Where may this pawn go", "fr": "Où ce pion peut aller"},
    "enix_cut": {"en": "may only turn", "fr": "ne peut que tourner"},
    "enix_cap": {"en": "Cap", "fr": "Chapeau"},
    "enix_order_label": {"en": "Order", "fr": "Ordre"},
}


def t(key: str, lang: str = "en", **values) -> str:
    return STRINGS[key][lang].format(**values)


def both(key: str, **values) -> dict[str, str]:
    """The sentence in every language: {"en": ..., "fr": ...}."""
    return {lang: t(key, lang, **values) for lang in LANGUAGES}


def both_of(say: Callable[[str], str]) -> dict[str, str]:
    """`say(lang)` for every language."""
    return {lang: say(lang) for lang in LANGUAGES}


def labels() -> dict[str, dict[str, str]]:
    """Every fixed label, by language, for the page's script."""
    return {lang: {k: v[lang] for k, v in STRINGS.items()} for lang in LANGUAGES}

"""Banners in English and French; the engine's reasons translated, unknown ones kept."""

from tablecam.companion import narrate
from tablecam.companion.i18n import STRINGS


def test_an_illegal_placement_in_both_languages():
    event = {"event": "placement", "legal": False,
             "reason": "colour clash: a white micropul would face a black micropul"}
    assert narrate.micropul(event) == ("Illegal placement: colour clash: a white micropul would face a black "
                                       "micropul. Take the tile back.")
    assert narrate.micropul(event, "fr") == ("Pose illégale : couleurs opposées : un micropul blanc toucherait "
                                             "un micropul noir. Reprenez la tuile.")


def test_a_placement_with_draws_and_a_closed_group_in_french():
    event = {"event": "placement", "legal": True, "draw": 2, "extra_turns": 1, "core_left": 20,
             "closed_groups": [{"colour": "B", "points": 3, "owner": "red", "stones": 1}]}
    assert narrate.micropul(event) == ("Tile placed, closes a black group worth 3 points for red. "
                                       "Draw 2 tiles into your reserve and play again. 20 left in the core.")
    assert narrate.micropul(event, "fr") == ("Tuile posée, ferme un groupe noir de 3 points pour rouge. "
                                             "Piochez 2 tuiles dans votre réserve et rejouez. Il reste 20 dans la pioche.")


def test_unexplained_readings_are_translated_part_by_part():
    reason = "2 tiles appeared at once; 1 stone vanished: more than one move since the last stable view, please check the table"
    assert narrate.reason(reason, "fr") == ("2 tuiles sont apparues d'un coup; 1 pierre(s) disparue(s) : plus d'un "
                                            "coup depuis la dernière vue stable, vérifiez la table")
    assert narrate.reason("something new", "fr") == "something new"


def test_every_page_string_exists_in_both_languages():
    for key, texts in STRINGS.items():
        assert set(texts) == {"en", "fr"} and all(texts.values()), key

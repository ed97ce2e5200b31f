"""ENIX cards: order of play (battles included) and end-of-game scores (halving, the 25 limit, ties)."""

from __future__ import annotations

from fractions import Fraction

from tablecam.rules.enix.cards import Card, final_scores, hand_score, play_order

SIX = [Card("solar", 1), Card("water", 2), Card("geothermal", 3), Card("waves", 4), Card("wind", 5),
       Card("biomass", 6)]  # 21, one of each energy


def test_highest_card_plays_first():
    order = play_order({"red": [3], "blue": [9], "green": [-4]})
    assert order.order == ("blue", "red", "green")
    assert dict(order.totals) == {"red": 3, "blue": 9, "green": -4}


def test_a_tie_is_an_open_battle_until_the_tied_players_add_a_card():
    order = play_order({"red": [5], "blue": [5], "green": [2]})
    assert order.order is None
    assert order.battles == (("blue", "red"),)
    assert "must add a card" in order.reason
    # Only one of them has added: still open.
    assert play_order({"red": [5, 1], "blue": [5], "green": [2]}).order is None


def test_a_battle_is_decided_by_the_added_cards_and_totals_add_up_for_movement():
    order = play_order({"red": [5, 3], "blue": [5, -4], "green": [2]})
    assert order.order == ("red", "blue", "green")
    assert dict(order.totals) == {"red": 8, "blue": 1, "green": 2}


def test_battles_repeat_while_the_tie_lasts():
    assert play_order({"red": [5, 2], "blue": [5, 2]}).order is None
    assert play_order({"red": [5, 2, -1], "blue": [5, 2, 4]}).order == ("blue", "red")


def test_a_three_way_tie_leaves_the_still_tied_pair_battling():
    order = play_order({"a": [4, 7], "b": [4, 1], "c": [4, 1], "d": [6]})
    assert order.ranking[:2] == (("d",), ("a",))
    assert order.battles == (("b", "c"),)


def test_waiting_for_a_player_to_reveal():
    order = play_order({"red": [4], "blue": []})
    assert order.order is None and "blue" in order.reason


def test_each_enix_card_halves_the_total_once_more():
    assert hand_score([Card("solar", 9), Card("water", 8)]) == 17
    assert hand_score([Card("solar", 9), Card("water", 8), Card("enix", None)]) == Fraction(17, 2)
    assert hand_score([Card("solar", 9), Card("water", 8), Card("enix", None), Card("enix", None)]) == Fraction(17, 4)


def test_negative_values_subtract():
    assert hand_score([Card("solar", 9), Card("water", -10)]) == -1


def test_closest_to_25_without_passing_wins_and_26_is_out():
    result = final_scores({"red": SIX + [Card("solar", 4)], "blue": [Card("wind", 9), Card("water", 9),
                                                                    Card("solar", 8)],
                           "green": [Card("waves", 9), Card("wind", 9)]}, ender="red")
    assert dict(result.scores) == {"red": 25, "blue": 26, "green": 18}
    assert result.out == ("blue",)
    assert result.winners == ("red",)
    assert result.ender_may_end


def test_a_half_point_above_25_is_out():
    result = final_scores({"red": SIX, "blue": [Card("wind", 9)] * 5 + [Card("solar", 6), Card("enix", None)]},
                          ender="red")
    assert dict(result.scores)["blue"] == Fraction(51, 2)
    assert result.out == ("blue",)


def test_a_tie_goes_to_the_player_who_ended_the_game():
    hands = {"red": SIX, "blue": [Card("wind", 9), Card("water", 9), Card("solar", 3)]}  # 21 each
    assert final_scores(hands, ender="red").winners == ("red",)
    assert final_scores(hands, ender="blue").winners == ("blue",)


def test_a_tie_without_the_ender_is_shared():
    hands = {"red": SIX[:5], "blue": [Card("wind", 9)] * 2 + [Card("solar", 3)],
             "green": [Card("water", 9)] * 2 + [Card("solar", 3)]}  # red 15, blue 21, green 21
    result = final_scores(hands, ender="red")
    assert result.winners == ("blue", "green") and "share" in result.reason
    hands["red"] = SIX  # red 21 too, and red ended the game: red takes the tie
    assert final_scores(hands, ender="red").winners == ("red",)


def test_ending_without_six_energies_is_flagged():
    result = final_scores({"red": SIX[:5], "blue": [Card("wind", 3)]}, ender="red")
    assert not result.ender_may_end
    assert "biomass missing" in result.reason


def test_everyone_out_means_no_winner():
    result = final_scores({"red": [Card("wind", 9)] * 3, "blue": [Card("solar", 9)] * 3}, ender=None)
    assert result.winners == () and "nobody" in result.reason

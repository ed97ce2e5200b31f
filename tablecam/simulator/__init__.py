"""Renders table scenes of any game state through a camera model, with ground truth."""

"""The app: camera sources, frame loop, trackers, web page, persistence, settings, CLI."""

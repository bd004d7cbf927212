"""The conformance runner of FORMAT.md: scenarios through the same engine code the service uses."""

from cardgames.service.conformance.runner import ScenarioFailure, run_paths, run_scenario, scenario_files

__all__ = ["ScenarioFailure", "run_paths", "run_scenario", "scenario_files"]

"""What outlives the process: session files, export, prompt history."""

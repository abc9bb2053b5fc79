"""Playing in the terminal (`khasino play --human SEAT`): what a seat sees (seat_view), its screen (screen), the
move notation (notation), why a move is illegal (explain), hints and the review (hints), the game loop
(session), and saved games, checked by replaying them before a game resumes (saves)."""

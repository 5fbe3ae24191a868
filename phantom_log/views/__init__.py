"""What people read: reports, the terminal, pictures, annotations, the replay page."""

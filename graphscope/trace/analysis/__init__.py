"""Reading a finished record for answers: findings, a recorded node rebuilt and gradchecked."""

from rivulet.app.cli import main

main()

from bandstand.cli import main

main()

module durak-sample-bot-go

go 1.19

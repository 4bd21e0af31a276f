{
    "stakes": 0.2,
    "handData": {"latin-1": [
        {
            "inFantasy": false,
            "playerName": "aná",
            "orderIndex": 1,
            "hero": true,
            "dead": "5c1 2d2 7s3 Kh4",
            "rows": "As1 Jd3 Jh4/3s0 4d0 3d1 2h2 2c2/6c0 9d0 9s0 6s3 9c4",
            "playerId": "p1",
            "result": -7,
            "win": -1.4
        },
        {
            "inFantasy": false,
            "playerName": "<b>bo</b>",
            "orderIndex": 0,
            "hero": false,
            "dead": "",
            "rows": "Ad1 Qd3 Qs3/Kd0 Kc0 2s1 4c4 Ah4/5s0 6h0 7d0 8h2 9h2",
            "playerId": "p2",
            "result": 7,
            "win": 1.33
        }
    ]},
    "joined": true,
    "clubId": "977180",
    "rules": "progressive17_nojokers",
    "price": "1.6AUD",
    "appName": "Upoker",
    "endDateTime": "2020-05-27 21:04:17",
    "roomId": "6852666"
}
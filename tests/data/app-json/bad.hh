{
    "stakes": 0.2,
    "handData": {"g-1": [
        {
            "inFantasy": false,
            "playerName": "ana",
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


{
    "stakes": 0.2,
    "handData": {
        "bad-card": [
            {
                "inFantasy": false,
                "playerName": "ana",
                "orderIndex": 1,
                "hero": true,
                "dead": "5c1 2d2 7s3 Kh4",
                "rows": "As1 Jd3 Zz4/3s0 4d0 3d1 2h2 2c2/6c0 9d0 9s0 6s3 9c4",
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
        ]
    },
    "joined": true,
    "clubId": "977180",
    "rules": "progressive17_nojokers",
    "price": "1.6AUD",
    "appName": "Upoker",
    "endDateTime": "2020-05-27 21:04:17",
    "roomId": "6852666"
}


{
    "stakes": 0.2,
    "handData": {
        "dup-card": [
            {
                "inFantasy": false,
                "playerName": "ana",
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
                "rows": "As1 Qd3 Qs3/Kd0 Kc0 2s1 4c4 Ah4/5s0 6h0 7d0 8h2 9h2",
                "playerId": "p2",
                "result": 7,
                "win": 1.33
            }
        ]
    },
    "joined": true,
    "clubId": "977180",
    "rules": "progressive17_nojokers",
    "price": "1.6AUD",
    "appName": "Upoker",
    "endDateTime": "2020-05-27 21:04:17",
    "roomId": "6852666"
}


{
    "stakes": 0.2,
    "handData": {
        "big-top": [
            {
                "inFantasy": false,
                "playerName": "ana",
                "orderIndex": 1,
                "hero": true,
                "dead": "5c1 2d2 7s3 Kh4",
                "rows": "As1 Jd3 Jh4 Th4/3s0 4d0 3d1 2h2 2c2/6c0 9d0 9s0 6s3",
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
        ]
    },
    "joined": true,
    "clubId": "977180",
    "rules": "progressive17_nojokers",
    "price": "1.6AUD",
    "appName": "Upoker",
    "endDateTime": "2020-05-27 21:04:17",
    "roomId": "6852666"
}


{
    "stakes": 0.2,
    "handData": {
        "odd-rules": [
            {
                "inFantasy": false,
                "playerName": "ana",
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
        ]
    },
    "joined": true,
    "clubId": "977180",
    "rules": "crazy_pineapple_9000",
    "price": "1.6AUD",
    "appName": "Upoker",
    "endDateTime": "2020-05-27 21:04:17",
    "roomId": "6852666"
}


{
    "stakes": 0.2,
    "handData": {
        "h-x": [
            {
                "inFantasy": false,
                "playerName": "ana",
                "orderIndex": 1,
                "hero": true,
                "dead": "5c1 2d2 7s3 Kh4",
                "rows": "As1 Jd3 Jh4/3s0 4d0 3d1 2h2 2c2/6c0 9d0 9s0 6s3 9c4",
                "playerId": "p1",
                "result": -7,
                "win": -1.4
            }
        ]
    },
    "joined": true,
    "clubId": "977180",
    "rules": "progressive17_nojokers",
    "price": "1.6AUD",
    "appName": "Upoker",
    "endDateTime": "2020-05-27 21:04:17",
    "roomId": "6852666"
}


{
    "stakes": 2,
    "handData": {"truncated": [
        {
